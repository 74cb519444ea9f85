// The desktop of a real 0.4.2 server that finds none of its programs (its PATH is an empty
// directory): the typed 503 with the server's install hint. Needs no desktop packages.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom } from "rxjs";
import WebSocket from "ws";
import type { Desktop } from "../../../lib/sandbox/server/desktop/index.js";
import { DesktopDependenciesMissingError, SandboxAgentHttpError, NotFoundError } from "../../../lib/sandbox/errors.js";
import { rejection } from "../../support/rejection.js";
import type { SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startDesktopServer, type DesktopServer } from "./desktop-server.js";

const TOKEN = "desktop-missing-secret-7f3a";
const MISSING = ["Xvfb", "openbox", "xdotool", "import", "xrandr"];

function expectMissing(error: unknown): void {
  expect(error).toBeInstanceOf(DesktopDependenciesMissingError);
  expect(error).toBeInstanceOf(SandboxAgentHttpError);
  const missing = error as DesktopDependenciesMissingError;
  expect(missing.status).toBe(503);
  expect(missing.kind).toBe("desktop-dependencies-missing");
  expect(missing.missingDependencies).toEqual(MISSING);
  expect(missing.installCommand).toBe("sandbox-agent install desktop --yes");
  expect(`${missing.message} ${String(missing)} ${JSON.stringify(missing)}`).not.toContain(TOKEN);
}

describe("desktop without its programs (real 0.4.2 server, empty PATH)", () => {
  let running: DesktopServer;
  let server: SandboxAgentServer;
  let desktop: Desktop;
  let emptyPath: string;

  beforeAll(async () => {
    emptyPath = mkdtempSync(join(tmpdir(), "empty-path-"));
    running = await startDesktopServer({ token: TOKEN, env: { PATH: emptyPath } });
    ({ server, desktop } = running);
  });

  afterAll(async () => {
    await running?.stop();
    rmSync(emptyPath, { recursive: true, force: true });
  });

  it("status says install_required with what is missing and how to get it", async () => {
    const status = await desktop.status();
    expect(status).toMatchObject({
      state: "install_required",
      missingDependencies: MISSING,
      installCommand: "sandbox-agent install desktop --yes",
      lastError: { code: "desktop_dependencies_missing" },
    });
  });

  it("start, screenshots, input and screen$ fail with DesktopDependenciesMissingError", async () => {
    expectMissing(await rejection(desktop.start({ width: 800, height: 600 })));
    expectMissing(await rejection(desktop.screenshot()));
    expectMissing(await rejection(desktop.screenshotRegion({ x: 0, y: 0, width: 10, height: 10 })));
    expectMissing(await rejection(desktop.keyboard.type("x")));
    expectMissing(await rejection(desktop.mouse.position()));
    expectMissing(await rejection(desktop.windows.list()));
    expectMissing(await rejection(desktop.clipboard.set("x")));
    expectMissing(await rejection(firstValueFrom(desktop.screen$({ intervalMs: 10 }))));
  });

  it("stop, recordings and stream status still answer; stream start is a typed 409", async () => {
    expect((await desktop.stop()).state).toBe("inactive");
    expect(await desktop.recordings.list()).toEqual([]);
    expect(await rejection(desktop.recordings.get("rec_1"))).toBeInstanceOf(NotFoundError);
    expect(await desktop.stream.status()).toEqual({ active: false });
    const error = await rejection(desktop.stream.start());
    expect(error).toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-runtime-inactive" });
  });

  it("the stream's signaling WebSocket takes the token as a header only", async () => {
    const url = desktop.stream.signalingUrl();
    expect(url).toBe(`${server.baseUrl.replace("http://", "ws://")}/v1/desktop/stream/signaling`);
    /** The HTTP status the server refuses the upgrade with. */
    const refusal = (target: string, headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(target, { headers });
        socket.on("unexpected-response", (_request, response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        socket.on("open", () => reject(new Error("the upgrade was accepted")));
        socket.on("error", () => undefined);
      });
    // With the header, auth passes and the route says the stream is not running.
    expect(await refusal(url, { authorization: `Bearer ${TOKEN}` })).toBe(409);
    // The query token other WebSocket routes accept is refused here.
    expect(await refusal(`${url}?access_token=${TOKEN}`, {})).toBe(401);
  });
});
