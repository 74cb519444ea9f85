/** Shared pieces of the reliability suite. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AcpHttpClient, isNotification, type AcpEnvelope, type AcpHttpClientOptions, type PromptParams } from "../../../lib/acp-http/index.js";

let counter = 0;

/** A serverId nobody else uses on a shared 0.4.2 server (one agent process per id). */
export function uniqueServerId(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** A protocol client for the 0.4.2 server's `/v1/acp/{serverId}` transport. */
export function v1Client(baseUrl: string, label: string, extra: Partial<AcpHttpClientOptions> = {}): AcpHttpClient {
  return new AcpHttpClient({
    baseUrl,
    path: `/v1/acp/${encodeURIComponent(uniqueServerId(label))}`,
    bootstrapQuery: { agent: "mock" },
    responseEcho: true,
    closeTimeoutMs: 500,
    ...extra,
  });
}

export const scratchDir = (): string => mkdtempSync(join(tmpdir(), "rx-reliability-"));

export function sessionParams(): { cwd: string; mcpServers: [] } {
  return { cwd: tmpdir(), mcpServers: [] };
}

export function textPrompt(sessionId: string, text: string): PromptParams {
  return { sessionId, prompt: [{ type: "text", text }] };
}

/** `{sessionId, text}` of an `agent_message_chunk` session/update, else undefined. */
export function messageChunk(envelope: AcpEnvelope): { sessionId: string; text: string } | undefined {
  if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
  const params = envelope.params as { sessionId?: unknown; update?: { sessionUpdate?: unknown; content?: { text?: unknown } } } | undefined;
  const update = params?.update;
  if (update?.sessionUpdate !== "agent_message_chunk" || typeof update.content?.text !== "string") return undefined;
  return { sessionId: String(params?.sessionId), text: update.content.text };
}

export const range = (n: number, prefix = "c"): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

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
