// The servers the resume specs cut a turn short on (the v2 contract server, the real 0.4.2 server with
// the scripted agent), each with the prompt of a turn of N updates and the texts those updates carry.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandboxAgent } from "../support/sandbox-agent-server.js";
import { startV2ContractServer } from "../support/v2-contract-server.js";

export interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

export interface ResumeCase {
  api: "v1" | "v2";
  start(): Promise<Server>;
  prompt: string;
  texts: string[];
  /** A short turn, for a prompt after the resumed one. */
  quickPrompt: string;
}

/** A turn of `updates` updates, `delayMs` apart, on each server. */
export function resumeCases(updates: number, delayMs: number): Array<[string, ResumeCase]> {
  const words = Array.from({ length: updates - 1 }, (_, i) => `w${i + 1}`);
  return [
    [
      "the v2 contract server",
      {
        api: "v2",
        start: () => startV2ContractServer({ mockChunkDelayMs: delayMs }),
        // The mock agent answers "mock: <prompt>" one word per update.
        prompt: words.join(" "),
        texts: ["mock: ", ...words.map((word, i) => (i < words.length - 1 ? `${word} ` : word))],
        quickPrompt: "again",
      },
    ],
    [
      "the real 0.4.2 server (scripted agent)",
      {
        api: "v1",
        start: () => startSandboxAgent(),
        prompt: `slowchunks ${updates} ${delayMs}`,
        texts: Array.from({ length: updates }, (_, i) => `c${i}`),
        quickPrompt: "slowchunks 2 1",
      },
    ],
  ];
}

/**
 * The case's server and a temporary directory for one describe block; `cleanup` runs first when
 * the block ends (clients, child processes), then the server stops and the directory goes.
 */
export function serverPerBlock(spec: ResumeCase, prefix: string, cleanup: () => Promise<void> | void) {
  const fixture = { server: undefined as unknown as Server, dir: "" };
  beforeAll(async () => {
    fixture.server = await spec.start();
    fixture.dir = mkdtempSync(join(tmpdir(), prefix));
  }, 60_000);
  afterAll(async () => {
    await cleanup();
    await fixture.server?.stop();
    if (fixture.dir) rmSync(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
