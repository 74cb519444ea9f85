// What a session record keeps besides events, on the real 0.4.2 server with the scripted agent:
// live mode and config-option changes are written back to the record and re-applied when a resume
// gives the session a fresh agent process (session/load or a replay); sessions opened by
// session/fork and ACP session/resume are recorded like session/new; and the replay text of a
// stateless resume stays pending until a prompt carrying it has succeeded.
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { SandboxAgentClient, memoryStore } from "../../lib/sandbox/index.js";
import type { SandboxEvent, SessionConfigOption, SessionRecord, SessionStore } from "../../lib/sandbox/index.js";
import { allEvents, chunkText, statelessServers } from "./client-helpers.js";

const FORKING_AGENT = fileURLToPath(new URL("./forking-agent.mjs", import.meta.url));
const SCRIPTED_AGENT = fileURLToPath(new URL("../support/scripted-agent.mjs", import.meta.url));

const client = (baseUrl: string, store: SessionStore, extra = {}) =>
  new SandboxAgentClient({ baseUrl, agent: "mock", store, cwd: tmpdir(), ...extra });

/** The store's record once `check` holds for it (writes are queued behind the session's events). */
async function recordWhen(store: SessionStore, id: string, check: (r: SessionRecord) => boolean) {
  let record: SessionRecord | undefined;
  for (let i = 0; i < 100; i++) {
    record = await store.getSession(id);
    if (record && check(record)) return record;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return record;
}

const values = (options: unknown) =>
  Object.fromEntries(((options ?? []) as SessionConfigOption[]).map((o) => [o.id, o.currentValue]));
const WANTED = { model: "mock-fast", mode: "plan", thought_level: "high" };
const modeOf = (record: SessionRecord | undefined) => (record?.modes as { currentModeId?: string })?.currentModeId;
const settled = (record: SessionRecord) =>
  modeOf(record) === "plan" && values(record.configOptions).thought_level === "high";

/** A first client that changed the session's mode and options (by the set calls and by the agent), then left. */
async function configuredLife(baseUrl: string, store: SessionStore): Promise<string> {
  const first = client(baseUrl, store);
  await first.ready;
  const { sessionId } = await first.newSession();
  await first.setSessionMode(sessionId, "plan");
  await first.setSessionConfigOption(sessionId, "model", "mock-fast");
  await first.prompt(sessionId, "setoption thought_level high"); // the agent's own config_option_update
  await first.disconnect();
  return sessionId;
}

/** The last config_option_update the agent sends (the client has one session): the agent's own view. */
function agentOptions(c: SandboxAgentClient) {
  let last: { sessionId: string; values: Record<string, unknown> } | undefined;
  c.events$.subscribe((event: SandboxEvent) => {
    if (event.kind !== "update" || event.update.sessionUpdate !== "config_option_update") return;
    last = { sessionId: event.sessionId, values: values(event.update.configOptions) };
  });
  return () => last;
}

describe("session records on the 0.4.2 server", () => {
  const servers = statelessServers({ agentScript: FORKING_AGENT, env: { SCRIPTED_AGENT_PATH: SCRIPTED_AGENT } });
  const track = (c: SandboxAgentClient) => (servers.clients.push(c), c);

  it("writes mode and option changes to the record; session/load on a new agent process re-applies them", async () => {
    const store = memoryStore();
    const localId = await configuredLife(servers.withLoad.baseUrl, store);
    const record = await recordWhen(store, localId, settled);
    expect(modeOf(record)).toBe("plan");
    expect(values(record?.configOptions)).toEqual(WANTED);

    const second = track(client(servers.withLoad.baseUrl, store, { autoConnect: false }));
    const reported = agentOptions(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("loaded");
    // The new agent process started the session over (mode normal); the stored state was sent back.
    expect(reported()).toEqual({ sessionId: localId, values: WANTED });
    expect((resumed?.modes as { currentModeId?: string })?.currentModeId).toBe("plan");
    expect((await second.getSessionModes(localId))?.currentModeId).toBe("plan");
    expect(values(await second.getSessionConfigOptions(localId))).toEqual(WANTED);
    expect(values((await store.getSession(localId))?.configOptions)).toEqual(WANTED);
  }, 60_000);

  it("re-applies the stored mode and options to the new session of a replayed resume", async () => {
    const store = memoryStore();
    const localId = await configuredLife(servers.withoutLoad.baseUrl, store);
    await recordWhen(store, localId, settled);
    const second = track(client(servers.withoutLoad.baseUrl, store, { autoConnect: false }));
    const reported = agentOptions(second);
    const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
    expect(resumed?.resumedBy).toBe("replayed");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reported()).toEqual({ sessionId: resumed?.sessionId, values: WANTED });
    expect(values(resumed?.configOptions)).toEqual(WANTED);
    expect(values((await recordWhen(store, localId, settled))?.configOptions)).toEqual(WANTED);
  }, 60_000);

  it("records a forked session like a new one, linked to its parent", async () => {
    const store = memoryStore();
    const c = track(client(servers.withLoad.baseUrl, store));
    await c.ready;
    const { sessionId: parent } = await c.newSession({ metadata: { title: "parent" } });
    const { sessionId: fork } = await c.forkSession(parent);
    expect(fork).not.toBe(parent);
    await c.prompt(fork, "chunks 2");
    const record = await recordWhen(store, fork, () => true);
    expect(record).toMatchObject({ id: fork, agentSessionId: fork, metadata: { forkedFrom: parent } });
    expect(record?.sessionInit).toMatchObject({ cwd: tmpdir() });
    await c.disconnect();
    const texts = (await allEvents(store, fork)).map((e) => chunkText(e.payload)).filter(Boolean);
    expect(texts).toEqual(["c0", "c1"]);
    expect((await store.getSession(parent))?.metadata).toEqual({ title: "parent" });
  }, 60_000);

  it("records a session opened by ACP session/resume", async () => {
    const first = track(client(servers.withLoad.baseUrl, memoryStore()));
    await first.ready;
    const { sessionId } = await first.newSession();
    const store = memoryStore(); // a store that has never heard of the session
    const second = track(client(servers.withLoad.baseUrl, store));
    await second.ready;
    expect(await second.resumeSession(sessionId)).toBeUndefined();
    await second.prompt(sessionId, "chunks 2");
    await second.disconnect();
    expect(await store.getSession(sessionId)).toMatchObject({ id: sessionId, agentSessionId: sessionId });
    const texts = (await allEvents(store, sessionId)).map((e) => chunkText(e.payload)).filter(Boolean);
    expect(texts).toEqual(["c0", "c1"]);
  }, 60_000);

  describe("the replay text of a stateless resume", () => {
    /** A fetch whose next session/prompt POST fails (`fail`) or is aborted by the caller (`abort`). */
    function promptFaults() {
      let next: "fail" | AbortController | undefined;
      const fetch: typeof globalThis.fetch = async (input, init) => {
        const fault = next;
        if (fault && typeof init?.body === "string" && init.body.includes('"session/prompt"')) {
          next = undefined;
          if (fault === "fail") throw new TypeError("the network is down");
          fault.abort();
        }
        return globalThis.fetch(input, init);
      };
      return { fetch, fail: () => (next = "fail"), abort: (controller: AbortController) => (next = controller) };
    }

    it("stays pending through a failed and an aborted prompt, and goes with the first one that succeeds", async () => {
      const store = memoryStore();
      const first = client(servers.withoutLoad.baseUrl, store);
      await first.ready;
      const { sessionId: localId } = await first.newSession();
      await first.prompt(localId, "chunks 3");
      await first.disconnect();
      const faults = promptFaults();
      const second = track(client(servers.withoutLoad.baseUrl, store, { autoConnect: false, fetch: faults.fetch }));
      const resumed = await second.resumeSession(localId, {}, { timeoutMs: 20_000 });
      expect(resumed?.resumedBy).toBe("replayed");

      faults.fail();
      await expect(second.prompt(localId, "lost on the way")).rejects.toThrow();
      const controller = new AbortController();
      faults.abort(controller);
      await expect(second.prompt(localId, "aborted", { signal: controller.signal })).rejects.toThrow();

      const outcome = await second.prompt(localId, "what did you say?");
      const seen = (outcome.raw._meta as { promptTexts: string[] }).promptTexts;
      expect(seen).toHaveLength(2);
      expect(seen[0]).toMatch(/^Earlier in this session/);
      expect(seen[0]).toContain("c0c1c2");
      expect(seen[1]).toBe("what did you say?");
      const next = await second.prompt(localId, "again");
      expect((next.raw._meta as { promptTexts: string[] }).promptTexts).toEqual(["again"]);
    }, 60_000);
  });
});
