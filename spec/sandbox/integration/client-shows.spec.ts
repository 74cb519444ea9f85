// What the client tells the agent it can present (the `shows` option) and what the agent tells the
// client it answers (`ConnectInfo.agentCan`), against the real 0.4.2 server driving the scripted
// agent as `mock`: the agent records the client capabilities its `initialize` carried.
import { SandboxAgentClient, UnsupportedFeatureError } from "../../../lib/sandbox/index.js";
import { rejection } from "../../support/rejection.js";
import { realFactory, serverWithClients } from "./servers.js";

/** The client capabilities the agent's last `initialize` carried (the scripted agent's record). */
async function seen(c: SandboxAgentClient): Promise<Record<string, unknown> | null> {
  const answer = (await c.request("_probe/initialize", {}, { timeoutMs: 10_000 })) as {
    clientCapabilities: Record<string, unknown> | null;
  };
  return answer.clientCapabilities;
}

describe("what the client and the agent say they can do, against the real sandbox-agent 0.4.2", () => {
  const shared = serverWithClients(realFactory);
  const connected = async (options = {}) => {
    const c = shared.client(options);
    await c.ready;
    return c;
  };

  it("tells the agent by default that it shows compaction, notices and boolean options", async () => {
    const c = await connected();
    expect((await seen(c))?.session).toEqual({ compaction: {}, notices: {}, configOptions: { boolean: {} } });
  });

  it("leaves out what `shows` turns off, and the whole part when everything is off", async () => {
    const some = await connected({ shows: { notices: false } });
    expect((await seen(some))?.session).toEqual({ compaction: {}, configOptions: { boolean: {} } });
    const none = await connected({ shows: { compaction: false, notices: false, booleanOptions: false } });
    const capabilities = await seen(none);
    expect(capabilities).not.toBeNull();
    expect(capabilities).not.toHaveProperty("session");
    // The other capabilities are still the handlers' (no file handlers given here).
    expect(capabilities).toMatchObject({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
  });

  it("sets a boolean option the agent offered only to a client that shows them, as on or off", async () => {
    const c = await connected();
    const { sessionId } = await c.newSession({ metadata: { scriptedBoolean: true } });
    const verbose = (await c.getSessionConfigOptions(sessionId)).find((o) => o.id === "verbose");
    expect(verbose).toMatchObject({ type: "boolean", currentValue: false });
    // The agent takes it only as { type: "boolean", value } (and answers -32602 otherwise).
    await c.setSessionConfigOption(sessionId, "verbose", true, { timeoutMs: 10_000 });
    const after = (await c.getSessionConfigOptions(sessionId)).find((o) => o.id === "verbose");
    expect(after?.currentValue).toBe(true);
    // Anything but true or false is refused before it is sent.
    const refused = await rejection(c.setSessionConfigOption(sessionId, "verbose", "yes"));
    expect(refused).toBeInstanceOf(UnsupportedFeatureError);
    expect((refused as UnsupportedFeatureError).validValues).toEqual(["true", "false"]);

    const plain = await connected({ shows: { booleanOptions: false } });
    const other = await plain.newSession({ metadata: { scriptedBoolean: true } });
    const ids = (await plain.getSessionConfigOptions(other.sessionId)).map((o) => o.id);
    expect(ids).toEqual(["model", "mode", "thought_level"]);
  });

  it("refuses, before sending it, a boolean value from a client that said it shows no boolean options", async () => {
    // The protocol lets a client send `type: "boolean"` only once it said it takes boolean options;
    // a session that reported no options ("silent": it takes any value) is where nothing else refuses.
    const plain = await connected({ shows: { booleanOptions: false } });
    const { sessionId } = await plain.newSession({ metadata: { scriptedConfig: "silent" } });
    const refused = await rejection(plain.setSessionConfigOption(sessionId, "verbose", true, { timeoutMs: 10_000 }));
    expect(refused).toBeInstanceOf(UnsupportedFeatureError);
    expect((refused as UnsupportedFeatureError).message).toMatch(/booleanOptions/);
    // A value id still goes: only on/off values are the ones it said it does not take.
    await plain.setSessionConfigOption(sessionId, "thought_level", "high", { timeoutMs: 10_000 });

    const shows = await connected();
    const other = await shows.newSession({ metadata: { scriptedConfig: "silent" } });
    await shows.setSessionConfigOption(other.sessionId, "verbose", true, { timeoutMs: 10_000 });
  });

  it("reports the optional calls the agent advertised, on connect and on the client", async () => {
    const c = shared.client({ autoConnect: false });
    expect(c.connectInfo).toBeUndefined();
    const info = await c.connect({ timeoutMs: 15_000 });
    const agentCan = { loadSession: true, listSessions: true, deleteSession: true, logout: true };
    expect(info.agentCan).toEqual({ ...agentCan, additionalDirectories: false });
    expect(c.connectInfo).toEqual(info);
  });
});
