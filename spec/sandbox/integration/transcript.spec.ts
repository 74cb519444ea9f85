/** `session(id).transcript$` against the real 0.4.2 server and the scripted agent. */
import { BehaviorSubject, firstValueFrom, filter, timeout } from "rxjs";
import {
  memoryStore,
  SandboxAgentClient,
  type PermissionEntry,
  type Transcript,
} from "../../../lib/sandbox/index.js";
import { next, realFactory, serverWithClients } from "./servers.js";

const until = (latest: BehaviorSubject<Transcript>, predicate: (t: Transcript) => boolean, ms = 10_000) =>
  firstValueFrom(latest.pipe(filter(predicate), timeout(ms)));

describe("transcript$ against the real 0.4.2 server", () => {
  const { client, server } = serverWithClients(realFactory);

  it("builds the live transcript of several turns, and a finished session reopened from the store shows the same one", async () => {
    const store = memoryStore();
    const live = client({ store, onPermissionRequest: "ask" });
    await live.ready;
    const { sessionId } = await live.newSession();
    const latest = new BehaviorSubject<Transcript>(await next(live.session(sessionId).transcript$));
    const subscription = live.session(sessionId).transcript$.subscribe(latest);

    await live.prompt(sessionId, "hello");
    const afterHello = await until(latest, (t) => t.entries.some((e) => e.kind === "turn-end"));
    expect(afterHello.entries.map((e) => e.kind)).toEqual(["user-message", "agent-message", "turn-end"]);
    expect(afterHello.at(1)).toMatchObject({ text: "Hello, world" });
    expect(afterHello.at(2)).toMatchObject({ stopReason: "end_turn" });
    expect(afterHello.isRunning).toBe(false);

    // The permission waits in the transcript until the UI answers it.
    const turn = live.prompt(sessionId, "permission");
    const asked = await until(latest, (t) => t.pendingPermission !== undefined);
    expect(asked.isRunning).toBe(true);
    const pending = asked.pendingPermission as PermissionEntry;
    expect(pending.options.map((o) => o.optionId)).toEqual(expect.arrayContaining(["allow"]));
    expect(live.replyPermission(sessionId, pending.toolCallId, { outcome: "selected", optionId: "allow" })).toBe(true);
    await turn;
    const answered = await until(latest, (t) => t.entries.filter((e) => e.kind === "turn-end").length === 2);
    expect(answered.get(pending.id)).toMatchObject({ status: "selected", optionId: "allow" });
    expect(answered.pendingPermission).toBeUndefined();

    await live.prompt(sessionId, "setmode plan");
    await until(latest, (t) => t.currentModeId === "plan");
    await expect(live.prompt(sessionId, "error -32011 scripted failure")).rejects.toThrow(/scripted failure/);
    await until(latest, (t) => t.entries.some((e) => e.kind === "agent-error"));
    await live.prompt(sessionId, "ended");
    const finished = await until(latest, (t) => t.ended !== undefined && t.entries.filter((e) => e.kind === "turn-end").length === 4);
    subscription.unsubscribe();
    expect(finished.entries.map((e) => e.kind)).toEqual([
      "user-message", "agent-message", "turn-end",
      "user-message", "permission", "agent-message", "turn-end",
      "user-message", "mode-change", "config-change", "turn-end",
      "user-message", "agent-error",
      "user-message", "session-ended", "turn-end",
    ]);
    await live.disconnect();

    // A new client (a reloaded page) on the same store, not even connected: the whole transcript.
    const reopened = new SandboxAgentClient({ baseUrl: server().baseUrl, agent: "mock", store, autoConnect: false });
    const again = await next(reopened.session(sessionId).transcript$, (t) => t.size === finished.size);
    expect(JSON.parse(JSON.stringify(again))).toEqual(JSON.parse(JSON.stringify(finished)));
    expect(again.ended).toMatchObject({ reason: "completed" });
    expect(again.get(pending.id)).toMatchObject({ status: "selected" });
  }, 60_000);

  it("shows a late subscriber what the bounded store evicted as a gap, and the entries it kept with their live ids", async () => {
    const store = memoryStore({ maxEventsPerSession: 50 });
    const c = client({ store });
    await c.ready;
    const { sessionId } = await c.newSession();
    const live = new BehaviorSubject<Transcript>(await next(c.session(sessionId).transcript$));
    const subscription = c.session(sessionId).transcript$.subscribe(live);
    await c.prompt(sessionId, "chunks 80");
    await c.prompt(sessionId, "hello");
    const whole = await until(live, (t) => t.entries.filter((e) => e.kind === "turn-end").length === 2);
    subscription.unsubscribe();
    expect(whole.entries.map((e) => e.kind)).toEqual([
      "user-message", "agent-message", "turn-end", "user-message", "agent-message", "turn-end",
    ]);

    // 87 events (a prompt, 80 chunks and an end; a prompt, 3 chunks and an end), 50 kept.
    const ends = (t: Transcript) => t.entries.filter((e) => e.kind === "turn-end").length;
    const late = await next(c.session(sessionId).transcript$, (t) => ends(t) === 2);
    expect(late.entries.map((e) => e.kind)).toEqual([
      "events-lost", "agent-message", "turn-end", "user-message", "agent-message", "turn-end",
    ]);
    expect(late.at(0)).toMatchObject({ stream: "store", firstMissing: 1, lastMissing: 37 });
    expect(late.at(1)).toMatchObject({ text: Array.from({ length: 44 }, (_, i) => `c${i + 36}`).join("") });
    expect(late.entries.slice(2).map((e) => e.id)).toEqual(whole.entries.slice(2).map((e) => e.id));
    // The message whose first chunks were evicted keeps its live id (the agent gives no messageId).
    expect(late.at(1)!.id).toBe(whole.at(1)!.id);
    // And so does every entry in a new client reading the same store (a reloaded page).
    const baseUrl = server().baseUrl;
    const reopened = new SandboxAgentClient({ baseUrl, agent: "mock", store, autoConnect: false });
    const again = await next(reopened.session(sessionId).transcript$, (t) => ends(t) === 2);
    expect(again.entries.map((e) => e.id)).toEqual(late.entries.map((e) => e.id));
  }, 30_000);

  it("shows how the client's own permission handler answered, and nothing for a session it knows nothing of", async () => {
    const c = client({ onPermissionRequest: () => ({ outcome: "cancelled" }) });
    await c.ready;
    const { sessionId } = await c.newSession();
    // A view of an id the client never opened: nothing stored, so live only.
    const other = c.session(`${sessionId}-unknown`);
    const latest = new BehaviorSubject<Transcript>(await next(c.session(sessionId).transcript$));
    const subscription = c.session(sessionId).transcript$.subscribe(latest);
    await c.prompt(sessionId, "permission");
    const done = await until(latest, (t) => t.entries.some((e) => e.kind === "turn-end"));
    expect(done.entries.find((e) => e.kind === "permission")).toMatchObject({ status: "cancelled" });
    expect((await next(other.transcript$)).size).toBe(0);
    subscription.unsubscribe();
  }, 30_000);
});
