// The stable protocol's newer session methods through the sandbox client, against the real 0.4.2
// server and its scripted agent: more directories for a session, deleting a session, signing out,
// and the agent's questions answered by `onInput` (declined without it, cancelled with the turn).
import { AgentError, memoryStore, type InputReply, type InputRequest } from "../../../lib/sandbox/index.js";
import { realFactory, serverWithClients, sleep } from "./servers.js";

/** The scripted agent reports the client's answer to its question in `_meta.askAnswer`. */
const answerOf = (raw: Record<string, unknown>) => (raw._meta as { askAnswer?: unknown } | undefined)?.askAnswer;

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 20) await sleep(20);
  return check();
}

describe("stable session methods through the sandbox client, on the real 0.4.2 server", () => {
  const { client } = serverWithClients(realFactory);

  it("sends additionalDirectories on newSession and resumeSession; listSessions shows them", async () => {
    const c = client();
    await c.ready;
    const { sessionId } = await c.newSession({ additionalDirectories: ["/tmp/a", "/tmp/b"] });
    const plain = (await c.newSession()).sessionId;
    const directoriesOf = async (id: string) =>
      (await c.listSessions()).sessions.find((s) => s.sessionId === id)?.additionalDirectories;
    expect(await directoriesOf(sessionId)).toEqual(["/tmp/a", "/tmp/b"]);
    expect(await directoriesOf(plain)).toBeUndefined();
    // A session the agent has but this client never recorded: resumeSession is the agent's own resume.
    const unrecorded = (await c.request("session/new", { cwd: "/tmp", mcpServers: [] })) as { sessionId: string };
    await expect(c.resumeSession(unrecorded.sessionId, { additionalDirectories: ["/tmp/c"] })).resolves.toBeUndefined();
    expect(await directoriesOf(unrecorded.sessionId)).toEqual(["/tmp/c"]);
  }, 30_000);

  it("deletes a session at the agent: it leaves listSessions, and a second delete is the agent's error", async () => {
    const c = client();
    await c.ready;
    const { sessionId } = await c.newSession();
    const kept = (await c.newSession()).sessionId;
    await c.deleteSession(sessionId);
    const ids = (await c.listSessions()).sessions.map((s) => s.sessionId);
    expect(ids).toContain(kept);
    expect(ids).not.toContain(sessionId);
    await expect(c.deleteSession(sessionId)).rejects.toMatchObject({ kind: "agent", code: -32602 });
  }, 30_000);

  it("a deleted session's stored record ends: another client's restoreSessions skips it", async () => {
    const store = memoryStore();
    const c = client({ store });
    await c.ready;
    const { sessionId } = await c.newSession();
    const kept = (await c.newSession()).sessionId;
    await c.deleteSession(sessionId);
    expect((await store.getSession(sessionId))?.endedAt).toEqual(expect.any(Number));
    const later = client({ store });
    await later.ready;
    expect((await later.restoreSessions()).map((s) => s.localId)).toEqual([kept]);
  }, 30_000);

  it("a stored session comes back with its additionalDirectories, or the ones resumeSession is given", async () => {
    const store = memoryStore();
    const c = client({ store });
    await c.ready;
    const { sessionId } = await c.newSession({ additionalDirectories: ["/tmp/a", "/tmp/b"] });
    await c.disconnect();
    /** Another client on the same store, recording the params of each session/load it sends. */
    const reopen = async () => {
      const loads: unknown[] = [];
      const recording: typeof fetch = async (input, init) => {
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; params?: unknown }) : {};
        if (body.method === "session/load") loads.push(body.params);
        return fetch(input, init);
      };
      const later = client({ store, fetch: recording });
      await later.ready;
      return { later, loads };
    };
    const first = await reopen();
    await expect(first.later.resumeSession(sessionId)).resolves.toMatchObject({ resumedBy: "loaded" });
    expect(first.loads).toEqual([expect.objectContaining({ additionalDirectories: ["/tmp/a", "/tmp/b"] })]);
    await first.later.disconnect();
    const second = await reopen();
    await second.later.resumeSession(sessionId, { additionalDirectories: ["/tmp/c"] });
    expect(second.loads).toEqual([expect.objectContaining({ additionalDirectories: ["/tmp/c"] })]);
  }, 30_000);

  it("logs out: the agent then asks for sign-in on a new session", async () => {
    const c = client();
    await c.ready;
    await c.newSession();
    await c.logout();
    const refused = c.newSession();
    await expect(refused).rejects.toBeInstanceOf(AgentError);
    await expect(refused).rejects.toMatchObject({ code: -32000 });
  }, 30_000);

  it("answers the agent's form question with onInput's values", async () => {
    const asked: InputRequest[] = [];
    const c = client({
      onInput: (request) => {
        asked.push(request);
        return { action: "accept", values: { project: "rx", runs: 2 } };
      },
    });
    await c.ready;
    const { sessionId } = await c.newSession();
    const outcome = await c.prompt(sessionId, "elicit");
    expect(asked).toEqual([
      {
        kind: "form",
        sessionId,
        message: "Which project, and how many runs?",
        schema: expect.objectContaining({ required: ["project"] }) as unknown,
      },
    ]);
    expect(answerOf(outcome.raw)).toEqual({
      method: "elicitation/create",
      result: { action: "accept", content: { project: "rx", runs: 2 } },
    });
  }, 30_000);

  it("declines the agent's question without onInput, and never accepts a handler's malformed reply", async () => {
    const bare = client();
    await bare.ready;
    const first = (await bare.newSession()).sessionId;
    const declined = { method: "elicitation/create", result: { action: "decline" } };
    expect(answerOf((await bare.prompt(first, "elicit")).raw)).toEqual(declined);
    const sloppy = client({ onInput: () => ({ action: "yes please" }) as unknown as InputReply });
    await sloppy.ready;
    const second = (await sloppy.newSession()).sessionId;
    expect(answerOf((await sloppy.prompt(second, "elicit")).raw)).toEqual(declined);
  }, 30_000);

  it("hands a URL question over with its url and id", async () => {
    const asked: InputRequest[] = [];
    const c = client({
      onInput: (request) => {
        asked.push(request);
        return { action: "accept" };
      },
    });
    await c.ready;
    const { sessionId } = await c.newSession();
    const outcome = await c.prompt(sessionId, "elicit url");
    expect(asked).toEqual([
      {
        kind: "url",
        sessionId,
        message: "Sign in",
        url: "https://example.invalid/sign-in",
        id: expect.stringMatching(/^e-/) as unknown,
      },
    ]);
    expect(answerOf(outcome.raw)).toEqual({ method: "elicitation/create", result: { action: "accept" } });
  }, 30_000);

  it("answers an open question cancel when the turn is cancelled, and aborts onInput's signal", async () => {
    let signal: AbortSignal | undefined;
    const c = client({
      onInput: (_request, context) => {
        signal = context.signal;
        return new Promise<InputReply>(() => undefined);
      },
    });
    await c.ready;
    const { sessionId } = await c.newSession();
    const turn = c.prompt(sessionId, "elicit");
    expect(await until(() => signal !== undefined)).toBe(true);
    await c.cancel(sessionId);
    const outcome = await turn;
    expect(signal?.aborted).toBe(true);
    expect(answerOf(outcome.raw)).toEqual({ method: "elicitation/create", result: { action: "cancel" } });
  }, 30_000);
});
