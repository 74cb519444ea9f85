import { lastValueFrom, toArray, take, type Subscription } from "rxjs";
import {
  SandboxAgentClient,
  UnsupportedFeatureError,
  type PermissionRequest,
  type PromptEvent,
  type SandboxAgentClientOptions,
  type SandboxEvent,
  type SessionEnded,
} from "../../../lib/sandbox/index.js";
import type { SandboxParseError } from "../../../lib/sandbox/events/events.js";
import { BOTH, next, realFactory, recordingFetch, serverWithClients, sleep, v2Factory, type TestServer } from "./servers.js";

const SANDBOX = "sandboxagent.dev";

function text(event: SandboxEvent | PromptEvent): string | undefined {
  if (event.kind !== "update" || !("content" in event.update)) return undefined;
  const content = event.update.content;
  return content && typeof content === "object" && "text" in content && typeof content.text === "string" ? content.text : undefined;
}

function harness(factory: typeof v2Factory): {
  server: () => TestServer;
  client: (options?: Partial<SandboxAgentClientOptions>) => Promise<SandboxAgentClient>;
} {
  const shared = serverWithClients(factory);
  return {
    server: shared.server,
    client: async (options = {}) => {
      const c = shared.client(options);
      await c.ready;
      return c;
    },
  };
}

describe.each(BOTH)("sessions and events against the $name", (factory) => {
  const { client } = harness(factory);
  const promptText = factory.kind === "v2" ? "hello there" : "chunks 3";
  const expectedText = factory.kind === "v2" ? "mock: hello there" : "c0c1c2";

  it("streams a turn with prompt$: updates, then stop, then completion", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const events = await lastValueFrom(c.prompt$(sessionId, promptText).pipe(toArray()));
    const last = events.at(-1);
    expect(last).toEqual({ kind: "stop", stopReason: "end_turn" });
    const updates = events.slice(0, -1);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.every((e) => e.kind === "update" && e.sessionId === sessionId)).toBe(true);
    expect(updates.map(text).join("")).toBe(expectedText);
  });

  it("prompt resolves with the stop reason while events$ carries the updates", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const seen: SandboxEvent[] = [];
    const sub = c.events$.subscribe((e) => seen.push(e));
    const outcome = await c.prompt(sessionId, promptText);
    expect(outcome.stopReason).toBe("end_turn");
    // v2 §1.4: the POST result may be read before the last updates on the stream; wait for them.
    const all = (): string => seen.filter((e) => e.kind === "update").map(text).join("");
    for (let i = 0; i < 50 && all() !== expectedText; i++) await sleep(20);
    sub.unsubscribe();
    expect(all()).toBe(expectedText);
  });

  it("cancels the turn when prompt$ is unsubscribed mid-turn", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    // v2: the mock sends one chunk per word, 20 ms apart; 0.4.2: `wait` holds the turn until cancelled.
    const turn = factory.kind === "v2" ? Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ") : "wait";
    const received: PromptEvent[] = [];
    let sub: Subscription | undefined;
    const started = new Promise<void>((resolve) => {
      sub = c.prompt$(sessionId, turn).subscribe({ next: (e) => (received.push(e), resolve()) });
      if (factory.kind === "v1") setTimeout(resolve, 300);
    });
    await started;
    sub?.unsubscribe();
    await sleep(200);
    expect(recorder.rpcMethods()).toContain("session/cancel");
    expect(received.some((e) => e.kind === "stop")).toBe(false);
    if (factory.kind === "v2") expect(received.length).toBeLessThan(200);
    // The session is usable for the next turn.
    const outcome = await c.prompt(sessionId, factory.kind === "v2" ? "again" : "chunks 1");
    expect(outcome.stopReason).toBe("end_turn");
  });

  it("injects metadata into new sessions under the sandbox namespace", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const metadata = { title: "My session", variant: "fast", permissionMode: "plan", skills: ["a", "b"] };
    const handle = await c.newSession({ metadata });
    const sent = recorder.requests
      .map((r) => (r.body ? (JSON.parse(r.body) as { method?: string; params?: { _meta?: Record<string, unknown> } }) : undefined))
      .find((m) => m?.method === "session/new");
    expect(sent?.params?._meta?.[SANDBOX]).toEqual({ agent: "mock", ...metadata });
    if (factory.kind === "v1") {
      // The scripted agent echoes the `_meta` it received: the namespace reached the agent intact.
      const seen = (handle.raw._meta as { seenMeta?: Record<string, unknown> } | undefined)?.seenMeta;
      expect(seen?.[SANDBOX]).toEqual({ agent: "mock", ...metadata });
      // Its reply has no sandbox namespace of its own, so no metadata comes back as first-class fields.
      expect(handle.metadata).toEqual({});
    }
  });

  it("ends a session's view (session(id).events$) when that session ends", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const other = await c.newSession();
    const view = lastValueFrom(c.session(sessionId).events$.pipe(toArray()));
    const ended = next(c.sessionEnded$, (e) => e.sessionId === sessionId);
    if (factory.kind === "v2") await c.terminateSession(sessionId);
    else await c.prompt(sessionId, "ended");
    const events = await view;
    expect(events.at(-1)).toMatchObject({ kind: "session-ended", sessionId });
    expect(events.every((e) => "sessionId" in e && e.sessionId === sessionId)).toBe(true);
    expect(await ended).toMatchObject({ sessionId, reason: factory.kind === "v2" ? "terminated" : "completed" });
    // The other session is unaffected.
    expect((await c.prompt(other.sessionId, promptText)).stopReason).toBe("end_turn");
  });

  it("late subscribers get no replay of earlier events", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const lastChunk = next(c.events$, (e) => e.kind === "update" && (text(e) ?? "").endsWith(expectedText.slice(-2)));
    await c.prompt(sessionId, promptText);
    await lastChunk;
    const late: SandboxEvent[] = [];
    const sub = c.events$.subscribe((e) => late.push(e));
    await sleep(100);
    sub.unsubscribe();
    expect(late).toEqual([]);
    expect(await lastValueFrom(c.state$.pipe(take(1)))).toBe("connected");
  });
});

describe("extension events against the v2 contract server", () => {
  const { client, server } = harness(v2Factory);

  async function connectionOf(make: () => Promise<SandboxAgentClient>): Promise<{ c: SandboxAgentClient; connId: string }> {
    const before = new Set(server().v2?.connections() ?? []);
    const c = await make();
    const connId = (server().v2?.connections() ?? []).find((id) => !before.has(id));
    if (!connId) throw new Error("no new connection id");
    return { c, connId };
  }

  it("terminateSession → sessionEnded$ in camelCase", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const ended = next(c.sessionEnded$);
    const result = await c.terminateSession(sessionId);
    expect(result).toMatchObject({ terminated: true, alreadyEnded: false });
    expect(await ended).toEqual({ sessionId, reason: "terminated", terminatedBy: "daemon" });
    expect(await c.terminateSession(sessionId)).toMatchObject({ terminated: false, alreadyEnded: true });
  });

  it("an agent process exit → sessionEnded$ with exitCode and stderr summary", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const ended = next(c.sessionEnded$, (e) => e.sessionId === sessionId);
    server().v2?.killAgent("mock", { exitCode: 3, stderr: "line one\nline two\n" });
    const event: SessionEnded = await ended;
    expect(event).toEqual({
      sessionId,
      reason: "error",
      terminatedBy: "agent",
      message: "agent exited with status 3",
      exitCode: 3,
      stderr: { head: "line one\nline two", truncated: false, totalLines: 2 },
    });
  });

  it("the mock's crash → sessionEnded$ converted from snake_case and the prompt fails", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const ended = next(c.sessionEnded$, (e) => e.sessionId === sessionId);
    await expect(c.prompt(sessionId, "please crash")).rejects.toThrow(/mock process crashed/);
    expect(await ended).toEqual({
      sessionId,
      reason: "error",
      terminatedBy: "agent",
      message: "mock process crashed",
      exitCode: 1,
      stderr: { head: "mock stderr line 1\nmock stderr line 2", truncated: false, totalLines: 2 },
    });
  });

  it("_sandboxagent/agent/unparsed → parseErrors$", async () => {
    const { c, connId } = await connectionOf(() => client());
    const error = next(c.parseErrors$);
    server().v2?.emitToConnection(connId, { jsonrpc: "2.0", method: "_sandboxagent/agent/unparsed", params: { error: "bad json", raw: "{nope" } });
    expect(await error).toEqual<SandboxParseError>({ source: "agent", raw: "{nope", error: "bad json" });
  });

  it("setMetadata and listSessions: first-class fields and pass-through metadata", async () => {
    const c = await client();
    const { sessionId } = await c.newSession({ metadata: { title: "First", variant: "v-1", permissionMode: "plan" } });
    let listing = (await c.listSessions()).sessions.find((s) => s.sessionId === sessionId);
    expect(listing).toMatchObject({ sessionId, title: "First", agent: "mock", ended: false });
    expect(typeof listing?.createdAt).toBe("number");
    expect(typeof listing?.eventCount).toBe("number");
    expect(listing?.metadata).toMatchObject({ variant: "v-1", permissionMode: "plan" });
    await c.setMetadata(sessionId, { title: "Renamed", variant: "v-2" });
    listing = (await c.listSessions()).sessions.find((s) => s.sessionId === sessionId);
    expect(listing).toMatchObject({ title: "Renamed", metadata: expect.objectContaining({ variant: "v-2", permissionMode: "plan" }) as unknown });
    await c.terminateSession(sessionId);
    listing = (await c.listSessions()).sessions.find((s) => s.sessionId === sessionId);
    expect(listing?.ended).toBe(true);
  });

  it("setMetadata drops hostile keys before sending", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    await c.setMetadata(sessionId, JSON.parse('{"__proto__":{"polluted":1},"constructor":1,"title":"safe"}') as Record<string, unknown>);
    const body = recorder.requests.map((r) => r.body ?? "").find((b) => b.includes("set_metadata"));
    expect(body).toBeDefined();
    expect(JSON.parse(body ?? "{}")).toMatchObject({ params: { sessionId, metadata: { title: "safe" } } });
    expect(body).not.toMatch(/__proto__|constructor|polluted/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the real 0.4.2 server: agent-provided extensions and agent process failures", () => {
  const { client } = harness(realFactory);

  it("the agent's _sandboxagent/session/ended → sessionEnded$ in camelCase", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const ended = next(c.sessionEnded$);
    await c.prompt(sessionId, "ended");
    expect(await ended).toEqual({ sessionId, reason: "completed", terminatedBy: "agent" });
  });

  it("the agent's _sandboxagent/agent/unparsed → parseErrors$", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const error = next(c.parseErrors$);
    await c.prompt(sessionId, "unparsed");
    expect(await error).toEqual({ source: "agent", raw: "<<not understood>>", error: "scripted" });
  });

  it("a non-JSON stdout line → parseErrors$ with the raw line, and the turn goes on", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const error = next(c.parseErrors$);
    const outcome = await c.prompt(sessionId, "garbage");
    expect(outcome.stopReason).toBe("end_turn");
    const parseError = await error;
    expect(parseError.source).toBe("agent");
    expect(parseError.raw).toContain("this line is not json");
    expect(typeof parseError.error).toBe("string");
  });

  it("setMetadata is unsupported: UnsupportedFeatureError without a request", async () => {
    const recorder = recordingFetch();
    const c = await client({ fetch: recorder.fetch });
    const { sessionId } = await c.newSession();
    const before = recorder.requests.length;
    const error = await c.setMetadata(sessionId, { title: "x" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as UnsupportedFeatureError).feature).toBe("setMetadata");
    for (const call of [() => c.terminateSession(sessionId), () => c.detachSession(sessionId)]) {
      await expect(call()).rejects.toBeInstanceOf(UnsupportedFeatureError);
    }
    expect(recorder.requests.length).toBe(before);
  });

  it("listModels is advertised by the agent and works", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const models = await c.listModels(sessionId);
    expect(models.availableModels.length).toBeGreaterThan(0);
    expect(typeof models.availableModels[0]?.modelId).toBe("string");
  });

  it("answers permission requests with onPermissionRequest", async () => {
    const requests: PermissionRequest[] = [];
    const c = await client({
      onPermissionRequest: (request) => {
        requests.push(request);
        return { outcome: "selected", optionId: "allow" };
      },
    });
    const { sessionId } = await c.newSession();
    const permissionEvent = next(c.events$, (e) => e.kind === "permission-request");
    const outcome = await c.prompt(sessionId, "permission");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ sessionId, toolCall: { toolCallId: "tool-1", kind: "edit" } });
    expect(requests[0]?.options.map((o) => o.optionId)).toEqual(["allow", "deny"]);
    expect((outcome.raw._meta as { permissionAnswer?: unknown } | undefined)?.permissionAnswer).toEqual({ outcome: { outcome: "selected", optionId: "allow" } });
    expect(await permissionEvent).toMatchObject({ kind: "permission-request", sessionId });
  });

  it("agent exit: the pending prompt rejects with an agent-exited error, sessions end with the exit code, reconnect works", async () => {
    const c = await client();
    const { sessionId } = await c.newSession();
    const ended = next(c.sessionEnded$, (e) => e.sessionId === sessionId, 10_000);
    const error = await c.prompt(sessionId, "exit 3").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "SandboxAgentError", kind: "agent-exited" });
    expect((error as Error).message).toMatch(/exited with code 3\b/);
    expect(await ended).toMatchObject({ sessionId, reason: "error", terminatedBy: "agent", exitCode: 3 });
    const later = await c.newSession().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(later).toMatchObject({ name: "SandboxAgentError", kind: "agent-exited" });
    expect((later as Error).message).toMatch(/connect\(\)/);
    await c.disconnect();
    await c.connect();
    const fresh = await c.newSession();
    expect((await c.prompt(fresh.sessionId, "chunks 1")).stopReason).toBe("end_turn");
  });
});
