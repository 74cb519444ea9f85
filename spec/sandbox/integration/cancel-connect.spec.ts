// The sandbox client against a server that accepts connections and never answers: every request
// hangs, so only the client's own cancellation and time bounds can end a call.
import {
  CallAbortedError,
  CallTimeoutError,
  NotConnectedError,
  SandboxAgentClient,
} from "../../../lib/sandbox/index.js";
import { neverAnswer, withLoopback } from "../../support/loopback-server.js";

describe("a connect that never completes", () => {
  it("is cancelled by disconnect(): ready rejects with CallAbortedError and disconnect() returns", async () => {
    await withLoopback(neverAnswer, async (hole) => {
      const client = new SandboxAgentClient({ baseUrl: hole.url, agent: "mock", serverApi: "v1" });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client.disconnect();
      await expect(client.ready).rejects.toBeInstanceOf(CallAbortedError);
      expect(client.state).toBe("disconnected");
      await expect(client.newSession()).rejects.toBeInstanceOf(NotConnectedError);
    });
  });

  it("does not hold a call whose signal aborts while it waits for the connection", async () => {
    await withLoopback(neverAnswer, async (hole) => {
      const client = new SandboxAgentClient({ baseUrl: hole.url, agent: "mock" });
      const controller = new AbortController();
      const call = client.newSession({}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(call).rejects.toBeInstanceOf(CallAbortedError);
      await client.disconnect();
      await expect(client.ready).rejects.toBeInstanceOf(CallAbortedError);
    });
  });

  it("bounds a control-plane call by its timeoutMs and its signal", async () => {
    await withLoopback(neverAnswer, async (hole) => {
      const client = new SandboxAgentClient({ baseUrl: hole.url, serverApi: "v1", autoConnect: false });
      await expect(client.health({ timeoutMs: 100 })).rejects.toBeInstanceOf(CallTimeoutError);
      const controller = new AbortController();
      const listing = client.fs.listEntries("/tmp", { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(listing).rejects.toBeInstanceOf(CallAbortedError);
    });
  });
});
