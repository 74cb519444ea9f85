import type { Processes } from "../../../lib/sandbox/server/processes/index.js";
import { startLoopbackProxy, type LoopbackProxy } from "../../support/loopback-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { processesFor, until } from "./helpers.js";

// Unsubscribing from `logs$(id, { follow: false })` must abort its GET, as the following form does:
// a slow read nobody waits for should not hold a connection until the call's deadline.

let server: SandboxAgentServer;
let proxy: LoopbackProxy<undefined>;
let processes: Processes;
/** The plain log reads the proxy holds (never forwarded), and whether their client went away. */
const held: { gone: boolean }[] = [];

beforeAll(async () => {
  server = await startSandboxAgent();
  proxy = await startLoopbackProxy(server.baseUrl, {
    onRequest: (req, forward) => {
      if (req.method === "GET" && /\/logs(\?|$)/.test(req.url ?? "") && !/follow=true/.test(req.url ?? "")) {
        const entry = { gone: false };
        req.socket.once("close", () => (entry.gone = true));
        held.push(entry);
      } else forward();
    },
  });
  processes = processesFor(proxy.baseUrl);
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

describe("logs$ without follow", () => {
  it("unsubscribing aborts the read in flight", async () => {
    const info = await processes.spawn({ command: "sh", args: ["-c", "echo hi; sleep 30"] });
    try {
      const subscription = processes.logs$(info.id, { follow: false }).subscribe({ error: () => undefined });
      await until(() => held.length === 1, 5_000, "the log read to reach the proxy");
      subscription.unsubscribe();
      await until(() => held[0]?.gone === true, 5_000, "the log read's connection to close");
    } finally {
      await processesFor(server.baseUrl).kill(info.id);
    }
  });
});
