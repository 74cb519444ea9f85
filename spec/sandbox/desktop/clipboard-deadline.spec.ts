// clipboard.set's `timeoutMs` bounds the whole call, its read-back included. In front of a real server,
// a proxy holds the clipboard routes: the POST never answers (as on 0.4.2, whose `xclip` keeps it
// waiting) and the read-back is slow too. Needs no desktop packages.
import { ControlPlaneHttp } from "../../../lib/sandbox/server/control-plane.js";
import { Desktop } from "../../../lib/sandbox/server/desktop/index.js";
import { CallTimeoutError } from "../../../lib/sandbox/errors.js";
import { rejection } from "../../support/rejection.js";
import { startLoopbackProxy, type LoopbackProxy } from "../../support/loopback-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";

let server: SandboxAgentServer;
let proxy: LoopbackProxy<undefined>;
const held: string[] = [];

beforeAll(async () => {
  server = await startSandboxAgent();
  proxy = await startLoopbackProxy(server.baseUrl, {
    onRequest: (req, forward) => {
      if (/^\/v1\/desktop\/clipboard(\?|$)/.test(req.url ?? "")) held.push(req.method ?? "");
      else forward();
    },
  });
});
afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

describe("desktop.clipboard.set deadline", () => {
  it("a read-back that does not answer either ends the call at its one timeoutMs, not twice that", async () => {
    const settings = { baseUrl: proxy.baseUrl, token: undefined, headers: undefined, fetch: undefined };
    const http = new ControlPlaneHttp(settings);
    const desktop = new Desktop(http, { baseUrl: proxy.baseUrl });
    const timeoutMs = 1500;
    const startedAt = performance.now();
    const error = await rejection(desktop.clipboard.set("text", {}, { timeoutMs }));
    const elapsed = performance.now() - startedAt;
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toMatch(/^desktop\.clipboard\.set: /);
    expect(held).toEqual(["POST", "GET"]); // it did read back, within the same deadline
    expect(elapsed).toBeLessThan(timeoutMs * 1.5);
  });
});
