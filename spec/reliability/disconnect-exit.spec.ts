/**
 * A Node script that calls `disconnect()` while its `connect()` is still creating the server's side,
 * and does nothing else, ends soon after: the background settle of the cut-off creation (which
 * removes the instance the server may still create) does not hold the process open while the
 * server's creation drags on (an agent being installed). The settle's leak fix itself is
 * `cut-off-creation.spec.ts` and `disconnect-during-connect.spec.ts`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { report } from "./support/helpers.js";

const CHILD = fileURLToPath(new URL("./support/disconnect-mid-connect-child.ts", import.meta.url));
/** How long the server's creation takes in the child's view: far past the bound below. */
const CREATION_MS = 20_000;
/** How long the process may live after its disconnect resolved. */
const EXIT_BOUND_MS = 8_000;

let server: SandboxAgentServer;

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

describe("a script that disconnects mid-connect", () => {
  it("exits soon after its disconnect, while the server's creation is still going on", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, server.baseUrl, String(CREATION_MS)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let disconnectedAt: number | undefined;
    child.stdout.on("data", (data: Buffer) => {
      out += String(data);
      if (disconnectedAt === undefined && out.includes("disconnected")) disconnectedAt = performance.now();
    });
    child.stderr.on("data", (data: Buffer) => (err += String(data)));
    // Bounded: a child still alive past the creation is killed, and the spec fails on its time.
    const killer = setTimeout(() => child.kill("SIGKILL"), CREATION_MS + 20_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearTimeout(killer);
    const exitedAt = performance.now();
    expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
    expect(out).toMatch(/disconnected (AbortError|CallAbortedError|SandboxAgentError)/);
    const aliveMs = Math.round(exitedAt - (disconnectedAt ?? exitedAt));
    report("exit after disconnect mid-connect", { aliveMs, creationMs: CREATION_MS });
    expect(aliveMs).toBeLessThan(EXIT_BOUND_MS);
  }, 90_000);
});
