// A page reloaded while the agent waits for the user: the first client "process" is cut off with a
// permission (or a question) pending, a new client on the same store reattaches to the same server
// connection (real 0.4.2 server), shows the request from the store, and its answer, or the cancel of
// the turn, reaches the agent under the request's id: the turn goes on and ends.
import { tmpdir } from "node:os";
import { filter, firstValueFrom, timeout } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  type SandboxAgentClientOptions,
  type SessionStore,
  type Transcript,
  type TranscriptEntry,
} from "../../lib/sandbox/index.js";
import { allEvents, killableFetch } from "./client-helpers.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

type Asking = Pick<SandboxAgentClientOptions, "onPermissionRequest" | "onInput">;
const ASK: Asking = { onPermissionRequest: "ask", onInput: "ask" };

describe("a request of the agent pending when the page reloads (real 0.4.2 server)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await startSandboxAgent();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });

  /**
   * A first page that sends `verb`, waits until the agent's request `method` is stored, then is cut
   * off (nothing it does afterwards reaches the server or the store); a second page restores the
   * session from the same store.
   */
  async function reloadWhilePending(verb: string, method: string) {
    const store = memoryStore();
    const killable = killableFetch();
    const gone = () => Promise.reject(new Error("the page is gone"));
    const handle: SessionStore = {
      getSession: (id) => store.getSession(id),
      listSessions: (request) => store.listSessions(request),
      listEvents: (request) => store.listEvents(request),
      updateSession: (record) => (killable.signal.aborted ? gone() : store.updateSession(record)),
      insertEvent: (id, event) => (killable.signal.aborted ? gone() : store.insertEvent(id, event)),
    };
    const a = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      store: handle,
      fetch: killable.fetch,
      reconnect: { maxRetries: 0 },
      ...ASK,
    });
    clients.push(a);
    await a.ready;
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    void a.prompt(sessionId, verb).catch(() => undefined);
    const stored = async () => (await allEvents(store, sessionId)).some((e) => e.payload.method === method);
    for (let i = 0; i < 400 && !(await stored()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await stored()).toBe(true);
    killable.kill();

    const b = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false, ...ASK });
    clients.push(b);
    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => r.resumedBy)).toEqual(["reattached"]);
    return { b, sessionId };
  }

  const shown = (b: SandboxAgentClient, sessionId: string, pending: (t: Transcript) => boolean) =>
    firstValueFrom(b.session(sessionId).transcript$.pipe(filter(pending), timeout(10_000)));

  const ended = (b: SandboxAgentClient, sessionId: string) =>
    firstValueFrom(
      b.session(sessionId).transcript$.pipe(
        filter((t) => !t.isRunning && t.entries.some((e) => e.kind === "turn-end")),
        timeout(15_000),
      ),
    );

  const kinds = (t: Transcript) => t.entries.map((e: TranscriptEntry) => e.kind);
  const textOf = (t: Transcript) => t.entries.map((e) => ("text" in e ? String(e.text) : "")).join("");

  it("sends the new page's answer to a pending permission, and the turn goes on and ends", async () => {
    const { b, sessionId } = await reloadWhilePending("permission", "session/request_permission");
    const before = await shown(b, sessionId, (t) => t.pendingPermission !== undefined);
    expect(before.isRunning).toBe(true);

    const sent = b.replyPermission(sessionId, before.pendingPermission!.toolCallId, {
      outcome: "selected",
      optionId: "allow",
    });
    expect(sent).toBe(true);
    const t = await ended(b, sessionId);
    expect(t.pendingPermission).toBeUndefined();
    expect(t.entries.find((e) => e.kind === "permission")).toMatchObject({ status: "selected", optionId: "allow" });
    // The agent got the answer under its request's id: it echoes it as a chunk, then ends the turn.
    expect(textOf(t)).toContain(`"optionId":"allow"`);
    expect(t.at(-1)).toMatchObject({ kind: "turn-end", stopReason: "end_turn" });
  }, 90_000);

  it("answers a pending permission `cancelled` when the new page cancels the turn, which ends cancelled", async () => {
    const { b, sessionId } = await reloadWhilePending("permission", "session/request_permission");
    await shown(b, sessionId, (t) => t.pendingPermission !== undefined);

    await b.cancel(sessionId);
    const t = await ended(b, sessionId);
    expect(t.pendingPermission).toBeUndefined();
    expect(t.entries.find((e) => e.kind === "permission")).toMatchObject({ status: "cancelled" });
    expect(t.at(-1)).toMatchObject({ kind: "turn-end", stopReason: "cancelled" });
    expect(kinds(t)).not.toContain("agent-error");
  }, 90_000);

  it("sends the new page's answer to a pending question, and the turn ends", async () => {
    const { b, sessionId } = await reloadWhilePending("elicit", "elicitation/create");
    const before = await shown(b, sessionId, (t) => t.pendingInput !== undefined);

    const sent = b.replyInput(sessionId, before.pendingInput!.requestId, {
      action: "accept",
      values: { project: "reloaded", runs: 2 },
    });
    expect(sent).toBe(true);
    const t = await ended(b, sessionId);
    expect(t.pendingInput).toBeUndefined();
    // The agent echoes the answer it got under its request's id.
    expect(textOf(t)).toContain(`"project":"reloaded"`);
    expect(t.at(-1)).toMatchObject({ kind: "turn-end", stopReason: "end_turn" });
  }, 90_000);
});
