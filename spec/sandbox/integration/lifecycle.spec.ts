import { createServer } from "node:net";
import {
  AlreadyConnectedError,
  NotConnectedError,
  SandboxAgentError,
} from "../../../lib/sandbox/index.js";
import { BOTH, noUnhandledRejections, serverWithClients } from "./servers.js";

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe.each(BOTH)("lifecycle against the $name", (factory) => {
  const { client } = serverWithClients(factory);

  it("connects from the constructor: ready resolves and state is connected", async () => {
    const c = client();
    expect(["connecting", "disconnected"]).toContain(c.state);
    const info = await c.ready;
    expect(info).toMatchObject({ api: factory.kind, agent: "mock" });
    expect(c.state).toBe("connected");
    expect(c.connected).toBe(true);
    const session = await c.newSession();
    expect(typeof session.sessionId).toBe("string");
  });

  it("methods called during auto-connect wait for the connection", async () => {
    const c = client();
    const session = await c.newSession();
    expect(session.sessionId).toBeTruthy();
    expect(c.state).toBe("connected");
  });

  it("with autoConnect: false nothing connects and session methods throw NotConnectedError", async () => {
    const c = client({ autoConnect: false });
    await expect(c.ready).resolves.toBeUndefined();
    expect(c.state).toBe("disconnected");
    await expect(c.newSession()).rejects.toBeInstanceOf(NotConnectedError);
    await expect(c.prompt("s", "hi")).rejects.toBeInstanceOf(NotConnectedError);
    await expect(c.listSessions()).rejects.toBeInstanceOf(NotConnectedError);
    await expect(c.cancel("s")).rejects.toBeInstanceOf(NotConnectedError);
    const info = await c.connect();
    expect(info.api).toBe(factory.kind);
    expect(c.state).toBe("connected");
    await expect(c.newSession()).resolves.toMatchObject({ sessionId: expect.any(String) as string });
  });

  it("fails session methods after disconnect until connected again", async () => {
    const c = client();
    await c.ready;
    const { sessionId } = await c.newSession();
    await c.disconnect();
    expect(c.state).toBe("disconnected");
    expect(c.connected).toBe(false);
    const error = await c.prompt(sessionId, "hi").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NotConnectedError);
    expect((error as NotConnectedError).method).toBe("prompt");
    await expect(c.newSession()).rejects.toBeInstanceOf(NotConnectedError);
    await c.connect();
    await expect(c.newSession()).resolves.toMatchObject({ sessionId: expect.any(String) as string });
  });

  it("holds one connection: connect() twice throws an AlreadyConnectedError (a SandboxAgentError)", async () => {
    const c = client({ autoConnect: false });
    await c.connect();
    const second = await c.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(second).toBeInstanceOf(AlreadyConnectedError);
    expect(second).toBeInstanceOf(SandboxAgentError);
    expect(second).toMatchObject({ name: "AlreadyConnectedError", kind: "already-connected" });
    expect(c.state).toBe("connected");
    // A connect() while auto-connect is in flight is refused too.
    const auto = client();
    await expect(auto.connect()).rejects.toMatchObject({ name: "AlreadyConnectedError", kind: "already-connected" });
    await expect(auto.ready).resolves.toMatchObject({ agent: "mock" });
  });

  it("connects to the agent connect({ agent }) names, and keeps it for later connects", async () => {
    const c = client({ agent: undefined, autoConnect: false });
    await expect(c.connect()).rejects.toMatchObject({ kind: "no-agent" });
    await expect(c.connect({ agent: 42 as never })).rejects.toBeInstanceOf(TypeError);
    expect(c.state).toBe("disconnected");
    await expect(c.connect({ agent: "mock" })).resolves.toMatchObject({ agent: "mock" });
    const { sessionId } = await c.newSession();
    await expect(c.prompt(sessionId, "hi")).resolves.toMatchObject({ stopReason: "end_turn" });
    await c.disconnect();
    // Later connects keep it, as if it had been given to the constructor.
    await expect(c.connect()).resolves.toMatchObject({ agent: "mock" });
    expect(c.connectInfo?.agent).toBe("mock");
  });

  it("makes a failed auto-connect (nothing listening) visible on ready, without an unhandled rejection", async () => {
    const port = await closedPort();
    const unhandled = await noUnhandledRejections(async () => {
      const c = client({ baseUrl: `http://127.0.0.1:${port}`, serverApi: factory.kind });
      const connectError = await c.ready.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(connectError).toBeInstanceOf(SandboxAgentError);
      expect(c.state).toBe("disconnected");
      const callError = await c.newSession().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(callError).toBeInstanceOf(NotConnectedError);
      expect((callError as Error).cause).toBe(connectError);
    });
    expect(unhandled).toEqual([]);
  });

  it("makes a failed auto-connect (unknown agent) visible on ready; calls made meanwhile fail with it as cause", async () => {
    const unhandled = await noUnhandledRejections(async () => {
      const c = client({ agent: "nosuch-agent" });
      const pending = c.newSession().then(
        () => undefined,
        (e: unknown) => e,
      );
      const connectError = await c.ready.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(connectError).toBeInstanceOf(SandboxAgentError);
      const callError = await pending;
      expect(callError).toBeInstanceOf(NotConnectedError);
      expect((callError as Error).cause).toBe(connectError);
      expect(c.state).toBe("disconnected");
    });
    expect(unhandled).toEqual([]);
  });
});
