/** Shared pieces of the lib/acp-http integration tests. */
import { tmpdir } from "node:os";
import { isNotification, type AcpEnvelope, type AcpHttpClient, type AcpNotification } from "../../../lib/acp-http/index.js";
import { messageChunk } from "../../support/acp-http-helpers.js";

export {
  messageChunk,
  sandboxClient,
  textPrompt,
  uniqueServerId,
  waitFor,
  type MessageChunk,
} from "../../support/acp-http-helpers.js";

export function newSessionParams(extra: Record<string, unknown> = {}): { cwd: string; mcpServers: []; [key: string]: unknown } {
  return { cwd: tmpdir(), mcpServers: [], ...extra };
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

/** Settles `promise` into a value or the error it rejected with. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
