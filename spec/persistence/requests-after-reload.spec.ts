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
  type SandboxEvent,
  type SessionStore,
  type Transcript,
  type TranscriptEntry,
} from "../../lib/sandbox/index.js";
import { allEvents, killableFetch, pageStore } from "./client-helpers.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";

type Asking = Pick<SandboxAgentClientOptions, "onPermissionRequest" | "onInput">;
const ASK: Asking = { onPermissionRequest: "ask", onInput: "ask" };

const textOf = (t: Transcript) => t.entries.map((e) => ("text" in e ? String(e.text) : "")).join("");

/**
 * A first page on `store` that can be cut off (`kill`): nothing it does afterwards reaches the
 * server or the store, as when the page reloads.
 */
async function firstPage(baseUrl: string, store: SessionStore) {
  const killable = killableFetch();
  // The page's handle on the store goes with the page: nothing it does afterwards is written.
  const handle = pageStore(store, killable.signal);
  const a = new SandboxAgentClient({
    baseUrl,
    agent: "mock",
    store: handle,
    fetch: killable.fetch,
    reconnect: { maxRetries: 0 },
    ...ASK,
  });
  await a.ready;
  return { a, kill: killable.kill };
}

/** Waits (bounded) until the agent's request `method` in `sessionId` is stored. */
async function untilStored(store: SessionStore, sessionId: string, method: string): Promise<void> {
  const stored = async () => (await allEvents(store, sessionId)).some((e) => e.payload.method === method);
  for (let i = 0; i < 400 && !(await stored()); i++) await new Promise((r) => setTimeout(r, 25));
  expect(await stored()).toBe(true);
}

/** The scripted agent's echo of the permission answer `allow` it got. */
const echoesAllow = (e: SandboxEvent): boolean =>
  e.kind === "update" &&
  e.update.sessionUpdate === "agent_message_chunk" &&
  (e.update.content as { text?: unknown }).text?.toString().includes(`"optionId":"allow"`) === true;

/** The session's transcript once its turn is over. */
const ended = (b: SandboxAgentClient, sessionId: string) =>
  firstValueFrom(
    b.session(sessionId).transcript$.pipe(
      filter((t) => !t.isRunning && t.entries.some((e) => e.kind === "turn-end")),
      timeout(15_000),
    ),
  );

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
    const { a, kill } = await firstPage(server.baseUrl, store);
    clients.push(a);
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    void a.prompt(sessionId, verb).catch(() => undefined);
    await untilStored(store, sessionId, method);
    kill();

    const b = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false, ...ASK });
    clients.push(b);
    const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
    expect(resumed.map((r) => r.resumedBy)).toEqual(["reattached"]);
    return { b, sessionId };
  }

  const shown = (b: SandboxAgentClient, sessionId: string, pending: (t: Transcript) => boolean) =>
    firstValueFrom(b.session(sessionId).transcript$.pipe(filter(pending), timeout(10_000)));

  const kinds = (t: Transcript) => t.entries.map((e: TranscriptEntry) => e.kind);

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

// Two sessions on one connection, a permission pending in the second when the page reloads: the new
// page reattaches from the earlier session's cursor, so the server's replay brings the second
// session's request back while its resume has the same request from the store. Whichever of the
// two the client meets first, the request is handled once and answered once.
describe("a request both replayed and stored when the page reloads (real 0.4.2 server)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  const gates: Array<() => void> = [];
  beforeAll(async () => {
    server = await startSandboxAgent();
  }, 60_000);
  afterAll(async () => {
    for (const open of gates) open();
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await server?.stop();
  });

  /** A response whose body is read only once `gate` resolves: the replay comes after the resumes. */
  function heldBack(response: Response, gate: Promise<void>): Response {
    const reader = response.body!.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await gate;
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /**
   * The first page opens two sessions, the second waiting for a permission when it is cut off; the
   * second page resumes both, counting its handler's calls and the answers it posts. `replay-first`:
   * it resumes the first session (the replay brings the request, the handler answers it), then the
   * second. `replay-last`: `restoreSessions`, its event stream held back until that resolved.
   */
  async function reloadWithTwoSessions(order: "replay-first" | "replay-last") {
    const store = memoryStore();
    const { a, kill } = await firstPage(server.baseUrl, store);
    clients.push(a);
    const first = await a.newSession({ cwd: tmpdir() });
    await a.prompt(first.sessionId, "hello");
    const { sessionId } = await a.newSession({ cwd: tmpdir() });
    void a.prompt(sessionId, "permission").catch(() => undefined);
    await untilStored(store, sessionId, "session/request_permission");
    kill();

    let restored!: () => void;
    const gate = new Promise<void>((resolve) => (restored = resolve));
    gates.push(restored);
    const answers: unknown[] = [];
    const watching: typeof fetch = async (input, init) => {
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
      if (body && body.method === undefined && "result" in body) answers.push(body.id);
      const response = await fetch(input, init);
      const stream = init?.method === "GET" && new Headers(init.headers).get("accept") === "text/event-stream";
      return order === "replay-last" && stream && response.body ? heldBack(response, gate) : response;
    };
    let asked = 0;
    const b = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      store,
      autoConnect: false,
      fetch: watching,
      onPermissionRequest: () => {
        asked++;
        return { outcome: "selected", optionId: "allow" };
      },
    });
    clients.push(b);
    // The agent echoes the answer it got (the replay came before it on the stream).
    const echoed = firstValueFrom(b.events$.pipe(filter(echoesAllow), timeout(15_000)));
    if (order === "replay-first") {
      const call = { timeoutMs: 20_000 };
      expect(await b.resumeSession(first.sessionId, {}, call)).toMatchObject({ resumedBy: "reattached" });
      for (let i = 0; i < 400 && answers.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(answers).toHaveLength(1);
      expect(await b.resumeSession(sessionId, {}, call)).toMatchObject({ resumedBy: "attached" });
    } else {
      const resumed = await b.restoreSessions({ timeoutMs: 20_000 });
      restored();
      expect(resumed.map((r) => r.resumedBy)).toEqual(["reattached", "attached"]);
    }
    await echoed;
    // A turn of the other session afterwards: whatever the stream brought earlier was handled by then.
    await b.prompt(first.sessionId, "hello", { timeoutMs: 15_000 });
    return { asked: () => asked, answers, b, store, sessionId };
  }

  it("answers once a request the replay brought and answered before its session is resumed", async () => {
    const { asked, answers } = await reloadWithTwoSessions("replay-first");
    expect(asked()).toBe(1);
    expect(answers).toHaveLength(1);
  }, 90_000);

  it("answers once a request the replay brings only after the resumes are done", async () => {
    const { asked, answers } = await reloadWithTwoSessions("replay-last");
    expect(asked()).toBe(1);
    expect(answers).toHaveLength(1);
  }, 90_000);

  it("stores no turn end in the waiting session from the other session's replayed answer", async () => {
    const { b, store, sessionId } = await reloadWithTwoSessions("replay-last");
    // The permission's turn ends once the agent got the answer (its echo): that end is the first one.
    const transcript = await ended(b, sessionId);
    const permission = transcript.entries.find((e) => e.kind === "permission");
    expect(permission).toMatchObject({ status: "selected", optionId: "allow" });
    const events = await allEvents(store, sessionId);
    const isEnd = (e: (typeof events)[number]) =>
      e.payload.method === undefined && typeof (e.payload.result as { stopReason?: unknown })?.stopReason === "string";
    const isEcho = (e: (typeof events)[number]) =>
      JSON.stringify(e.payload).includes(String.raw`\"optionId\":\"allow\"`);
    const echo = events.findIndex(isEcho);
    expect(echo).toBeGreaterThanOrEqual(0);
    expect(events.findIndex(isEnd)).toBeGreaterThan(echo);
  }, 90_000);
});
