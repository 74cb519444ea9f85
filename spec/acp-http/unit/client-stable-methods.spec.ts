// The protocol client's newer stable methods and its gate on the unstable ones, against the fake
// server: what goes on the wire, what `initialize` advertises, and what is refused unsent.
import { AcpUnsupportedError } from "../../../lib/acp-http/index.js";
import { bodyOf, rpcResult } from "../../support/fake-acp-server.js";
import { createHarness, disconnectAll } from "./client-harness.js";

afterEach(disconnectAll);

/** A client whose fake server answers `initialize` with these capabilities and every other call `{}`. */
async function initialized(agentCapabilities: Record<string, unknown>, handlers = {}) {
  const h = createHarness({ handlers });
  h.server.onPost = (request) => {
    const message = bodyOf(request);
    return rpcResult(message.id, message.method === "initialize" ? { protocolVersion: 1, agentCapabilities } : {});
  };
  await h.client.initialize();
  const sent = () => h.server.requestsOf("POST").map((request) => bodyOf(request));
  return { ...h, sent };
}

describe("AcpHttpClient: the stable methods of protocol 1 as of SDK 2.4", () => {
  it("sends session/delete, logout, session/resume and session/close by their stable names", async () => {
    const h = await initialized({ sessionCapabilities: { delete: {}, resume: {}, close: {} } });
    await h.client.deleteSession({ sessionId: "s1" });
    await h.client.logout();
    await h.client.resumeSession({ sessionId: "s1", cwd: "/w", additionalDirectories: ["/x"] });
    await h.client.closeSession({ sessionId: "s1" });
    expect(h.sent().slice(1).map(({ method, params }) => [method, params])).toEqual([
      ["session/delete", { sessionId: "s1" }],
      ["logout", {}],
      ["session/resume", { sessionId: "s1", cwd: "/w", additionalDirectories: ["/x"] }],
      ["session/close", { sessionId: "s1" }],
    ]);
    expect(h.client.agentCapabilities?.sessionCapabilities?.delete).toEqual({});
  });

  it("keeps the SDK's deprecated unstable names of stable methods, each sending the stable method", async () => {
    const h = await initialized({ sessionCapabilities: { list: {}, resume: {}, close: {} } });
    h.server.onPost = (request) => {
      const message = bodyOf(request);
      return rpcResult(message.id, message.method === "session/list" ? { sessions: [], nextCursor: null } : {});
    };
    await expect(h.client.unstableListSessions({ cwd: "/w" })).resolves.toMatchObject({ sessions: [] });
    await h.client.unstableResumeSession({ sessionId: "s1", cwd: "/w" });
    await h.client.unstableCloseSession({ sessionId: "s1" });
    expect(h.sent().slice(1).map(({ method, params }) => [method, params])).toEqual([
      ["session/list", { cwd: "/w" }],
      ["session/resume", { sessionId: "s1", cwd: "/w" }],
      ["session/close", { sessionId: "s1" }],
    ]);
  });

  it("sends an unstable method the agent advertised", async () => {
    const h = await initialized({ sessionCapabilities: { fork: {}, title: {} } });
    await h.client.unstableForkSession({ sessionId: "s1", cwd: "/w" }).catch(() => undefined);
    await h.client.unstableSetSessionTitle({ sessionId: "s1", title: "t" });
    expect(h.sent().slice(1).map(({ method }) => method)).toEqual(["session/fork", "session/set_title"]);
  });

  it("refuses an unstable method the agent did not advertise with AcpUnsupportedError, sending nothing", async () => {
    const h = await initialized({ sessionCapabilities: { fork: null } });
    const refusals = [
      h.client.unstableForkSession({ sessionId: "s1", cwd: "/w" }),
      h.client.unstableArchiveSession({ sessionId: "s1" }),
      h.client.unstableUnarchiveSession({ sessionId: "s1" }),
      h.client.unstableSessionStatus({ sessionId: "s1" }),
      h.client.unstableSetSessionTitle({ sessionId: "s1", title: "t" }),
    ];
    const errorOf = (refusal: Promise<unknown>) => refusal.then(() => undefined, (error: unknown) => error);
    const errors = await Promise.all(refusals.map(errorOf));
    expect(errors.every((error) => error instanceof AcpUnsupportedError)).toBe(true);
    expect(errors.map((error) => (error as AcpUnsupportedError).capability)).toEqual([
      "sessionCapabilities.fork",
      "sessionCapabilities.archive",
      "sessionCapabilities.archive",
      "sessionCapabilities.status",
      "sessionCapabilities.title",
    ]);
    expect(h.sent().map(({ method }) => method)).toEqual(["initialize"]);
  });

  it("advertises elicitation only with a handler, and merges the caller's own client capabilities", async () => {
    const capabilitiesOf = async (handlers: Record<string, unknown>, params = {}) => {
      const h = createHarness({ handlers });
      h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
      await h.client.initialize(params);
      return (bodyOf(await h.server.request("POST")).params as { clientCapabilities: unknown }).clientCapabilities;
    };
    expect(await capabilitiesOf({})).not.toHaveProperty("elicitation");
    const ask = { createElicitation: () => ({ action: "decline" as const }) };
    expect(await capabilitiesOf(ask)).toMatchObject({ elicitation: { form: {}, url: {} } });
    const own = { clientCapabilities: { session: { notices: {} } } };
    expect(await capabilitiesOf(ask, own)).toMatchObject({
      fs: { readTextFile: false, writeTextFile: false },
      elicitation: { form: {}, url: {} },
      session: { notices: {} },
    });
  });
});

describe("AcpHttpClient: the agent's capabilities", () => {
  it("reads a capability of the wrong shape as absent, without failing initialize", async () => {
    const h = await initialized({
      loadSession: true,
      promptCapabilities: { image: "yes" },
      sessionCapabilities: { list: true, delete: {}, fork: 1 },
      auth: "none",
    });
    expect(h.client.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: {},
      sessionCapabilities: { delete: {} },
    });
    await expect(h.client.unstableForkSession({ sessionId: "s1", cwd: "/w" })).rejects.toBeInstanceOf(
      AcpUnsupportedError,
    );
  });
});
