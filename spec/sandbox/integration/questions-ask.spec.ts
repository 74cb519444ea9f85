// `onInput: "ask"` against the real 0.4.2 server and the scripted agent: the agent's question waits
// in the session's transcript (`pendingInput`) until `replyInput` answers it or its turn is cancelled,
// and a session reopened from the store shows how it was answered.
import { BehaviorSubject, firstValueFrom, filter, timeout } from "rxjs";
import { memoryStore, SandboxAgentClient, type InputEntry, type Transcript } from "../../../lib/sandbox/index.js";
import { next, realFactory, serverWithClients } from "./servers.js";

/** The scripted agent reports the client's answer to its question in `_meta.askAnswer`. */
const answerOf = (raw: Record<string, unknown>) => (raw._meta as { askAnswer?: unknown } | undefined)?.askAnswer;

const until = (latest: BehaviorSubject<Transcript>, predicate: (t: Transcript) => boolean, ms = 10_000) =>
  firstValueFrom(latest.pipe(filter(predicate), timeout(ms)));

describe('onInput: "ask" on the real 0.4.2 server', () => {
  const { client, server } = serverWithClients(realFactory);

  it("holds the form question as the transcript's pendingInput until replyInput answers it", async () => {
    const store = memoryStore();
    const c = client({ store, onInput: "ask" });
    await c.ready;
    const { sessionId } = await c.newSession();
    const latest = new BehaviorSubject<Transcript>(await next(c.session(sessionId).transcript$));
    const subscription = c.session(sessionId).transcript$.subscribe(latest);

    const turn = c.prompt(sessionId, "elicit");
    const asked = await until(latest, (t) => t.pendingInput !== undefined);
    const question = asked.pendingInput as InputEntry;
    expect(question).toMatchObject({ kind: "input", status: "pending" });
    expect(question.request).toMatchObject({ kind: "form", message: "Which project, and how many runs?" });
    expect(asked.isRunning).toBe(true);
    expect(c.replyInput(sessionId, "no-such-request", { action: "decline" })).toBe(false);
    const values = { project: "rx", runs: 2 };
    expect(c.replyInput(sessionId, question.requestId, { action: "accept", values })).toBe(true);
    expect(c.replyInput(sessionId, question.requestId, { action: "decline" })).toBe(false);
    const outcome = await turn;
    const accepted = { action: "accept", content: values };
    expect(answerOf(outcome.raw)).toEqual({ method: "elicitation/create", result: accepted });
    const statusOf = (t: Transcript) => (t.get(question.id) as InputEntry | undefined)?.status;
    const answered = await until(latest, (t) => statusOf(t) !== "pending" && !t.isRunning);
    expect(answered.get(question.id)).toMatchObject({ status: "accept" });
    expect(answered.pendingInput).toBeUndefined();
    subscription.unsubscribe();
    await c.disconnect();

    // A new client on the same store, not connected: the question and its answer are in the history.
    const reopened = new SandboxAgentClient({ baseUrl: server().baseUrl, agent: "mock", store, autoConnect: false });
    const again = await next(reopened.session(sessionId).transcript$, (t) => t.size === answered.size);
    expect(again.get(question.id)).toMatchObject({ kind: "input", status: "accept", requestId: question.requestId });
    expect(again.pendingInput).toBeUndefined();
  }, 60_000);

  it("answers cancel when the turn is cancelled, and the URL question leaves pendingInput", async () => {
    const c = client({ onInput: "ask" });
    await c.ready;
    const { sessionId } = await c.newSession();
    const latest = new BehaviorSubject<Transcript>(await next(c.session(sessionId).transcript$));
    const subscription = c.session(sessionId).transcript$.subscribe(latest);
    const turn = c.prompt(sessionId, "elicit url");
    const asked = await until(latest, (t) => t.pendingInput !== undefined);
    const question = asked.pendingInput as InputEntry;
    expect(question.request).toMatchObject({ kind: "url", url: "https://example.invalid/sign-in" });
    await c.cancel(sessionId);
    const outcome = await turn;
    expect(answerOf(outcome.raw)).toEqual({ method: "elicitation/create", result: { action: "cancel" } });
    const settled = await until(latest, (t) => t.pendingInput === undefined && !t.isRunning);
    expect(settled.get(question.id)).toMatchObject({ status: "cancel" });
    expect(c.replyInput(sessionId, question.requestId, { action: "accept" })).toBe(false);
    subscription.unsubscribe();
  }, 60_000);
});
