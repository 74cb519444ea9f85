/** Shared pieces of the lib/acp-http integration tests. */
import { tmpdir } from "node:os";
import {
  AcpHttpClient,
  isNotification,
  type AcpEnvelope,
  type AcpHttpClientOptions,
  type AcpNotification,
  type PromptParams,
} from "../../../lib/acp-http/index.js";

let counter = 0;

/** A serverId nobody else uses on a shared 0.4.2 server (one agent process per id). */
export function uniqueServerId(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** A client for the 0.4.2 server's `/v1/acp/{serverId}` transport. */
export function sandboxClient(baseUrl: string, label: string, extra: Partial<AcpHttpClientOptions> = {}): AcpHttpClient {
  return new AcpHttpClient({
    baseUrl,
    path: `/v1/acp/${encodeURIComponent(uniqueServerId(label))}`,
    bootstrapQuery: { agent: "mock" },
    responseEcho: true,
    closeTimeoutMs: 500,
    ...extra,
  });
}

export function newSessionParams(extra: Record<string, unknown> = {}): { cwd: string; mcpServers: []; [key: string]: unknown } {
  return { cwd: tmpdir(), mcpServers: [], ...extra };
}

export function textPrompt(sessionId: string, text: string): PromptParams {
  return { sessionId, prompt: [{ type: "text", text }] };
}

export interface MessageChunk {
  sessionId: string;
  text: string;
}

/** The text of an `agent_message_chunk` session/update, or undefined for anything else. */
export function messageChunk(envelope: AcpEnvelope): MessageChunk | undefined {
  if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
  const params = envelope.params as { sessionId?: unknown; update?: { sessionUpdate?: unknown; content?: { text?: unknown } } } | undefined;
  const update = params?.update;
  if (update?.sessionUpdate !== "agent_message_chunk" || typeof update.content?.text !== "string") return undefined;
  return { sessionId: String(params?.sessionId), text: update.content.text };
}

export function isNotificationNamed(envelope: AcpEnvelope, method: string): envelope is AcpNotification {
  return isNotification(envelope) && envelope.method === method;
}

/** Records every envelope from the moment of the call; `stop()` unsubscribes. */
export function record(client: AcpHttpClient): { envelopes: AcpEnvelope[]; completed: () => boolean; stop: () => void } {
  const envelopes: AcpEnvelope[] = [];
  let done = false;
  const subscription = client.envelopes$.subscribe({ next: (envelope) => envelopes.push(envelope), complete: () => (done = true) });
  return { envelopes, completed: () => done, stop: () => subscription.unsubscribe() };
}

/** Chunk texts of one session, in delivery order. */
export function chunkTexts(envelopes: readonly AcpEnvelope[], sessionId: string): string[] {
  return envelopes.flatMap((envelope) => {
    const chunk = messageChunk(envelope);
    return chunk && chunk.sessionId === sessionId ? [chunk.text] : [];
  });
}

export const range = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Resolves once `condition` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Settles `promise` into a value or the error it rejected with. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
