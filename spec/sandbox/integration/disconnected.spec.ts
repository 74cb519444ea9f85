import { firstValueFrom, toArray, take } from "rxjs";
import {
  NotConnectedError,
  SandboxAgentClient,
  memoryStore,
  type DisconnectInfo,
} from "../../../lib/sandbox/index.js";
import { rejection } from "../../support/rejection.js";
import { startSandboxAgent } from "../../support/sandbox-agent-server.js";
import { startV2ContractServer } from "../../support/v2-contract-server.js";

describe("disconnected$: why a connection ended", () => {
  it("says `disconnected` for disconnect(), with no error", async () => {
    const server = await startV2ContractServer();
    try {
      const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock" });
      await client.ready;
      const first = firstValueFrom(client.disconnected$);
      await client.disconnect();
      expect(await first).toEqual({ reason: "disconnected" });
      await expect(client.newSession()).rejects.toBeInstanceOf(NotConnectedError);
    } finally {
      await server.stop();
    }
  });

  it("reports a lost server as retries-exhausted, and later calls carry that loss as their cause", async () => {
    const server = await startV2ContractServer();
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", reconnect: { maxRetries: 1, initialDelayMs: 20, maxDelayMs: 20 } });
    await client.ready;
    const lost = firstValueFrom(client.disconnected$);
    await server.stop();
    const info: DisconnectInfo = await lost;
    expect(info.reason).toBe("retries-exhausted");
    expect(info.error).toMatchObject({ name: "SandboxAgentError", kind: "connection-lost" });
    expect(client.state).toBe("disconnected");
    const failure = await client.newSession().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotConnectedError);
    expect((failure as NotConnectedError).cause).toBe(info.error);
  });

  it("reports a server restarted under the connection as connection-lost; connect() works again", async () => {
    const server = await startSandboxAgent();
    try {
      const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", reconnect: { maxRetries: 5, initialDelayMs: 50, maxDelayMs: 200 } });
      await client.ready;
      const ends = firstValueFrom(client.disconnected$.pipe(take(1), toArray()));
      await server.restart();
      const [info] = await ends;
      expect(info?.reason).toBe("connection-lost");
      expect(info?.error).toMatchObject({ name: "SandboxAgentError", kind: "connection-lost" });
      await client.connect();
      const { sessionId } = await client.newSession();
      expect(sessionId).toMatch(/^sess-/);
      await client.disconnect();
    } finally {
      await server.stop();
    }
  });

  it("after disconnect(), resumeSession and restoreSessions fail with NotConnectedError until connect()", async () => {
    const server = await startSandboxAgent();
    try {
      const store = memoryStore();
      for (const autoConnect of [true, false]) {
        const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect });
        if (!autoConnect) await client.connect();
        const { sessionId } = await client.newSession();
        await client.disconnect();
        const states: string[] = [];
        const watching = client.state$.subscribe((state) => states.push(state));
        const resumed = await rejection(client.resumeSession(sessionId));
        expect(resumed).toBeInstanceOf(NotConnectedError);
        expect((resumed as NotConnectedError).method).toBe("resumeSession");
        const restored = await rejection(client.restoreSessions());
        expect(restored).toBeInstanceOf(NotConnectedError);
        expect((restored as NotConnectedError).method).toBe("restoreSessions");
        // No connection was attempted: the state never left `disconnected`.
        expect(states).toEqual(["disconnected"]);
        watching.unsubscribe();
        await client.connect();
        await expect(client.resumeSession(sessionId)).resolves.toMatchObject({ localId: sessionId });
        await client.disconnect();
      }
      // A client that never connected still reattaches by resuming (docs/persistence.md).
      const [record] = (await store.listSessions({ limit: 1 })).items;
      const fresh = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store, autoConnect: false });
      await expect(fresh.resumeSession(record!.id)).resolves.toMatchObject({ localId: record!.id });
      expect(fresh.connected).toBe(true);
      await fresh.disconnect();
    } finally {
      await server.stop();
    }
  }, 60_000);
});
