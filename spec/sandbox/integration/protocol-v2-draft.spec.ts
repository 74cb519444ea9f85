// The sandbox client speaking the ACP v2 draft (option `protocolVersion: 2`, experimental) end to end,
// through the real 0.4.2 server, which passes the draft through to its agent unchanged (see
// docs/acp-sdk-interop.md): the scripted agent answers `initialize` with 2 when asked for it, acknowledges a
// prompt with its messageId and reports the turn with `state_update`. A prompt resolves on the idle,
// every event of its turn delivered first; the transcript is the one the same script gives on v1;
// a session comes back with the agent's `session/resume`.
import { BehaviorSubject, firstValueFrom, filter, timeout } from "rxjs";
import {
  CallTimeoutError,
  isUpdate,
  memoryStore,
  SandboxAgentClient,
  type SandboxAgentClientOptions,
  type SandboxEvent,
  type Transcript,
} from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { next, realFactory, recordingFetch, serverWithClients } from "./servers.js";

const until = (latest: BehaviorSubject<Transcript>, predicate: (t: Transcript) => boolean, ms = 10_000) =>
  firstValueFrom(latest.pipe(filter(predicate), timeout(ms)));

const turnEnds = (t: Transcript) => t.entries.filter((entry) => entry.kind === "turn-end").length;

/** The sandbox events of one session, as they are delivered. */
function collect(client: SandboxAgentClient, sessionId: string): { events: SandboxEvent[]; stop: () => void } {
  const events: SandboxEvent[] = [];
  const subscription = client.session(sessionId).events$.subscribe((event) => events.push(event));
  return { events, stop: () => subscription.unsubscribe() };
}

const stateOf = (event: SandboxEvent | undefined): unknown =>
  event && (event.kind === "update" || event.kind === "unknown-update")
    ? (event.update as { sessionUpdate: string; state?: unknown }).sessionUpdate === "state_update"
      ? (event.update as { state?: unknown }).state
      : undefined
    : undefined;

/**
 * A transcript as a plain value, its times left out and each id that names a stored event (a stream
 * position, a client event's or note's random id) or the client's server id renamed in order of
 * appearance: the same conversation told on v1 and on v2 comes in other events (v2 sends more: the
 * acknowledgement, the states, the agent's echo of the prompt; its turn ends with the agent's idle
 * where v1's ends with the client's note of the answer), so those ids differ while naming
 * corresponding events. Ids made from the agent's own ids (`message:`,
 * `thought:`, `tool:` with messageId and toolCallId) stay as they are.
 */
const UUID = "[0-9a-f-]{36}";
const PER_RUN = new RegExp(`(note:[^:]+:${UUID}|sse:[^:]+:connection:\\d+|client:[^:]+:${UUID}|sdk-${UUID})`, "g");

function comparable(transcript: Transcript): unknown {
  const names = new Map<string, string>();
  const rename = (value: string): string =>
    value.replace(PER_RUN, (found) => {
      if (!names.has(found)) names.set(found, `<${names.size + 1}>`);
      return names.get(found) as string;
    });
  const TIMES = new Set(["at", "startedAt", "endedAt", "createdAt", "updatedAt", "time"]);
  const plain = JSON.parse(JSON.stringify(transcript.entries)) as unknown;
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return rename(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).filter(([key]) => !TIMES.has(key)).map(([key, inner]) => [key, walk(inner)]),
      );
    }
    return value;
  };
  return walk(plain);
}

describe("the ACP v2 draft through the real 0.4.2 server", () => {
  const { client, server } = serverWithClients(realFactory);

  it("is asked for with protocolVersion 2 and agreed in connectInfo; without the option it is 1", async () => {
    const wire = recordingFetch();
    const v2 = client({ protocolVersion: 2, fetch: wire.fetch });
    const info = await v2.ready;
    expect(info).toMatchObject({ api: "v1", protocolVersion: 2, agentInfo: { name: "scripted-agent" } });
    // The extensions the agent advertises in the draft's `capabilities` are read as on v1.
    expect(info?.extensions).toMatchObject({ sessionListModels: true });
    // What it can do, in the draft's terms: a session object (listing), delete and more directories by
    // flag, no load (the draft has none), no logout (no auth methods).
    expect(info?.agentCan).toEqual({
      loadSession: false,
      listSessions: true,
      deleteSession: true,
      logout: false,
      additionalDirectories: true,
    });
    const initialize = wire.requests.find((request) => request.body?.includes('"initialize"'));
    const asked = JSON.parse(initialize?.body ?? "{}") as { params: Record<string, unknown> };
    expect(asked.params).toMatchObject({ protocolVersion: 2 });
    // The draft's names, and none of v1's client capabilities (what the client shows is a v1 notion).
    expect(asked.params.clientCapabilities).toBeUndefined();
    expect(asked.params.info).toBeDefined();

    const v1 = client();
    await expect(v1.ready).resolves.toMatchObject({ protocolVersion: 1, agentInfo: { name: "scripted-agent" } });
  }, 30_000);

  it("resolves a prompt when the agent reports idle, with every event of the turn delivered before", async () => {
    const c = client({ protocolVersion: 2 });
    await c.ready;
    const { sessionId } = await c.newSession();
    const seen = collect(c, sessionId);
    // Slow chunks: the acknowledgement comes first, well before the turn's end.
    const outcome = await c.prompt(sessionId, "slowchunks 3 100");
    const delivered = [...seen.events];
    seen.stop();
    expect(outcome.stopReason).toBe("end_turn");
    expect(outcome.raw).toMatchObject({ messageId: "user-1", _meta: { scripted: { verb: "slowchunks" } } });
    const chunks = delivered.filter(
      (event) => event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk",
    );
    expect(chunks).toHaveLength(3);
    expect(stateOf(delivered.at(-1))).toBe("idle");
    expect(delivered.map(stateOf).filter(Boolean)).toEqual(["running", "idle"]);
  }, 30_000);

  it("reports a malformed draft update once, with its session and the update as it came, losing nothing", async () => {
    const c = client({ protocolVersion: 2 });
    await c.ready;
    const { sessionId } = await c.newSession();
    const errors: Array<{ raw: string }> = [];
    const subscription = c.parseErrors$.subscribe((error) => errors.push(error));
    const seen = collect(c, sessionId);
    // The turn resolves on its idle, which comes after the malformed update and the chunk behind it.
    const outcome = await c.prompt(sessionId, "malformed");
    seen.stop();
    subscription.unsubscribe();
    expect(outcome.stopReason).toBe("end_turn");
    const bad = { sessionUpdate: "tool_call_content_chunk", toolCallId: "tool-1" };
    expect(errors).toEqual([
      { source: "agent", sessionId, raw: expect.any(String), error: expect.stringContaining("malformed") },
    ]);
    expect(JSON.parse(errors[0]!.raw)).toEqual(bad);
    expect(seen.events.filter((event) => event.kind === "parse-error")).toHaveLength(1);
    const after = seen.events.find((event) => isUpdate(event, "agent_message_chunk"));
    expect(after).toMatchObject({ update: { content: { text: "after malformed" } } });
  }, 30_000);

  it("bounds the whole turn with timeoutMs: past it the turn is cancelled, and the agent reports idle", async () => {
    const c = client({ protocolVersion: 2 });
    await c.ready;
    const { sessionId } = await c.newSession();
    const idle = next(c.session(sessionId).events$, (event) => stateOf(event) === "idle");
    // Acknowledged at once, then no idle until the agent is told to cancel.
    await expect(c.prompt(sessionId, "wait", { timeoutMs: 500 })).rejects.toBeInstanceOf(CallTimeoutError);
    await expect(idle).resolves.toMatchObject({ update: { stopReason: "cancelled" } });
    expect((await c.prompt(sessionId, "chunks 2")).stopReason).toBe("end_turn");
  }, 30_000);

  it("sets a mode and a model through config options: the draft has no set_mode or set_model", async () => {
    const wire = recordingFetch();
    const c = client({ protocolVersion: 2, fetch: wire.fetch });
    await c.ready;
    const { sessionId } = await c.newSession();
    await c.setSessionMode(sessionId, "plan");
    await c.setSessionModel(sessionId, "mock-fast");
    const methods = wire.requests
      .map((request) => (JSON.parse(request.body ?? "{}") as { method?: string }).method)
      .filter((method) => method?.startsWith("session/set"));
    expect(methods).toEqual(["session/set_config_option", "session/set_config_option"]);
    expect((await c.getSessionModes(sessionId))?.currentModeId).toBe("plan");
  }, 30_000);

  it("gives the transcript the same script gives on v1, one turn-end per turn, live and reopened", async () => {
    const tell = async (protocolVersion: 1 | 2) => {
      const store = memoryStore();
      const c = client({ protocolVersion, store });
      await c.ready;
      const { sessionId } = await c.newSession();
      const latest = new BehaviorSubject<Transcript>(await next(c.session(sessionId).transcript$));
      const subscription = c.session(sessionId).transcript$.subscribe(latest);
      await c.prompt(sessionId, "reply");
      await c.prompt(sessionId, "reply");
      const live = await until(latest, (t) => turnEnds(t) === 2 && !t.isRunning);
      subscription.unsubscribe();
      await c.disconnect();
      const reopened = new SandboxAgentClient({ baseUrl: server().baseUrl, agent: "mock", store, autoConnect: false });
      const again = await next(reopened.session(sessionId).transcript$, (t) => t.size === live.size);
      return { live, again };
    };
    const v1 = await tell(1);
    const v2 = await tell(2);
    expect(v2.live.entries.map((entry) => entry.kind)).toEqual([
      "user-message", "thought", "tool-call", "agent-message", "turn-end",
      "user-message", "thought", "tool-call", "agent-message", "turn-end",
    ]);
    expect(comparable(v2.live)).toEqual(comparable(v1.live));
    expect(JSON.parse(JSON.stringify(v2.again.entries))).toEqual(JSON.parse(JSON.stringify(v2.live.entries)));
  }, 60_000);
});

describe("sessions on the ACP v2 draft through the real 0.4.2 server", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];
  const client = (options: Partial<SandboxAgentClientOptions> = {}) => {
    const created = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", protocolVersion: 2, ...options });
    clients.push(created);
    return created;
  };
  beforeAll(async () => {
    server = await startSandboxAgent({ env: { SCRIPTED_AGENT_REPLAY_ON_LOAD: "1" } });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("loads a session with session/resume and replayFrom: the replay reads as history, not as a turn", async () => {
    const wire = recordingFetch();
    const store = memoryStore();
    const c = client({ store, fetch: wire.fetch });
    await c.ready;
    await c.loadSession("sess-elsewhere");
    expect(wire.rpcMethods()).toContain("session/resume");
    expect(wire.rpcMethods()).not.toContain("session/load");
    const resume = wire.requests.find((request) => request.body?.includes('"session/resume"'));
    expect(JSON.parse(resume?.body ?? "{}")).toMatchObject({ params: { replayFrom: { type: "start" } } });

    const latest = new BehaviorSubject<Transcript>(await next(c.session("sess-elsewhere").transcript$));
    const subscription = c.session("sess-elsewhere").transcript$.subscribe(latest);
    const history = await until(latest, (t) => t.entries.some((e) => e.kind === "agent-message"));
    expect(history.entries.map((entry) => entry.kind)).toEqual(["user-message", "agent-message"]);
    expect(history.isRunning).toBe(false);
    await c.prompt("sess-elsewhere", "reply");
    const after = await until(latest, (t) => turnEnds(t) === 1 && !t.isRunning);
    subscription.unsubscribe();
    expect(after.entries.map((entry) => entry.kind)).toEqual([
      "user-message", "agent-message", "user-message", "thought", "tool-call", "agent-message", "turn-end",
    ]);
  }, 60_000);

  it("resumes a stored session on a new connection with the agent's session/resume, its history once", async () => {
    const store = memoryStore();
    const first = client({ store });
    await first.ready;
    const { sessionId } = await first.newSession();
    await first.prompt(sessionId, "reply");
    await first.disconnect();

    const wire = recordingFetch();
    const later = client({ store, fetch: wire.fetch, autoConnect: false });
    const resumed = await later.resumeSession(sessionId);
    expect(resumed).toMatchObject({ localId: sessionId, resumedBy: "resumed" });
    const resume = wire.requests.find((request) => request.body?.includes('"session/resume"'));
    expect(JSON.parse(resume?.body ?? "{}").params.replayFrom).toBeUndefined();
    expect(wire.rpcMethods()).not.toContain("session/load");
    await later.prompt(sessionId, "reply");
    const transcript = await next(later.session(sessionId).transcript$, (t) => turnEnds(t) === 2 && !t.isRunning);
    expect(transcript.entries.map((entry) => entry.kind)).toEqual([
      "user-message", "thought", "tool-call", "agent-message", "turn-end",
      "user-message", "thought", "tool-call", "agent-message", "turn-end",
    ]);
  }, 60_000);
});
