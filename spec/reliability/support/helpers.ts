/** Shared pieces of the reliability suite. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { sleep } from "../../support/acp-http-helpers.js";

export {
  messageChunk,
  sandboxClient as v1Client,
  sleep,
  textPrompt,
  uniqueServerId,
  waitFor,
} from "../../support/acp-http-helpers.js";

export const scratchDir = (): string => mkdtempSync(join(tmpdir(), "rx-reliability-"));

export function sessionParams(): { cwd: string; mcpServers: [] } {
  return { cwd: tmpdir(), mcpServers: [] };
}

export const range = (n: number, prefix = "c"): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Settles with the outcome instead of throwing, so tests can assert on rejections with timing. */
export async function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T; at: number } | { ok: false; error: unknown; at: number }> {
  try {
    const value = await promise;
    return { ok: true, value, at: Date.now() };
  } catch (error) {
    return { ok: false, error, at: Date.now() };
  }
}

/** Where figures are collected: each spec prints its own block so a run's numbers are visible. */
export function report(title: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[reliability] ${title}: ${JSON.stringify(figures)}\n`);
}

/** The server ids the 0.4.2 server lists (`GET /v1/acp`): its live agent instances. */
export async function listedInstances(baseUrl: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/v1/acp`);
  const body = (await response.json()) as { servers: { serverId: string }[] };
  return body.servers.map((s) => s.serverId);
}

/**
 * Waits until the server lists no instance and `alive` (its agent processes, say) lists nothing;
 * returns what is left then, or at the deadline.
 */
export async function drained(
  baseUrl: string,
  timeoutMs: number,
  alive: () => number[] = () => [],
): Promise<{ listed: string[]; alive: number[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = { listed: await listedInstances(baseUrl), alive: alive() };
    if ((left.listed.length === 0 && left.alive.length === 0) || Date.now() > deadline) return left;
    await sleep(100);
  }
}
