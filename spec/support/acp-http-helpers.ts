/** Pieces shared by the lib/acp-http integration tests and the reliability suite. */
import { AcpHttpClient, isNotification, type AcpEnvelope, type AcpHttpClientOptions, type PromptParams } from "../../lib/acp-http/index.js";
import { SANDBOX_AGENT_HEADER } from "./sandbox-agent-transport.js";

let counter = 0;

/** A serverId nobody else uses on a shared 0.4.2 server (one agent process per id). */
export function uniqueServerId(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** A protocol client for the 0.4.2 server's `/v1/acp/{serverId}` transport. */
export function sandboxClient(baseUrl: string, label: string, extra: Partial<AcpHttpClientOptions> = {}): AcpHttpClient {
  return new AcpHttpClient({
    baseUrl,
    path: `/v1/acp/${encodeURIComponent(uniqueServerId(label))}`,
    ...SANDBOX_AGENT_HEADER,
    bootstrapQuery: { agent: "mock" },
    responseEcho: true,
    closeTimeoutMs: 500,
    ...extra,
  });
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

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
