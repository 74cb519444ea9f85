import { readHttpProblem } from "../../../internal/http.js";
import type { HttpSettings } from "../control-plane.js";
import { CallAbortedError, SandboxAgentHttpError, SandboxAgentError } from "../../errors.js";
import { credentialsReading, unreachable } from "../../error-mapping.js";
import { callToken } from "../call-token.js";

/**
 * A GET for a Server-Sent Events stream with the client's auth and a `Last-Event-ID`.
 * The control plane's `send` cannot add that header, so this is the one request of the
 * process API made with `fetch` directly; errors are the control plane's types.
 */
export async function openEventStream(
  settings: HttpSettings,
  operation: string,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  lastEventId: string | undefined,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const token = await callToken(settings.token, operation, signal);
  let headers: Headers;
  try {
    // Headers merges names case-insensitively and refuses CR/LF in values.
    headers = new Headers(settings.headers);
  } catch (error) {
    throw new SandboxAgentError(`${operation}: a custom header is not a valid HTTP header`, {
      cause: error,
      kind: "invalid-header",
    });
  }
  headers.set("accept", "text/event-stream");
  if (token) headers.set("authorization", `Bearer ${token}`);
  if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
  const url = `${settings.baseUrl.replace(/\/+$/, "")}${path}?${search.toString()}`;
  let response: Response;
  try {
    response = await (settings.fetch ?? globalThis.fetch)(url, { headers, signal });
  } catch (error) {
    if (signal.aborted) throw new CallAbortedError(`${operation} was aborted`, { cause: signal.reason });
    throw unreachable(operation, error, settings.baseUrl);
  }
  if (!response.ok) {
    const { problem, bodyText } = await readHttpProblem(response);
    throw credentialsReading(new SandboxAgentHttpError(operation, response.status, problem, bodyText), settings);
  }
  if (!response.body) throw new SandboxAgentError(`${operation}: the response has no body`, { kind: "network" });
  return response.body;
}
