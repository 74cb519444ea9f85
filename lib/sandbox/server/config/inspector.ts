import type { TokenSource } from "../../../acp-http/index.js";

/** Options of `inspectorUrl`. */
export interface InspectorUrlOptions {
  /** The server, e.g. `http://127.0.0.1:2468`. */
  baseUrl: string;
  /** Put in the URL as `token`; the UI sends it as a bearer token. */
  token?: TokenSource | undefined;
  /** Extra headers for the UI to send, JSON-encoded into `headers`. */
  headers?: Record<string, string> | undefined;
  /** The server the UI should talk to when it is not the one serving it (`url`). */
  serverUrl?: string;
}

/**
 * The address of the server's inspector UI (`/ui/`), with the connection settings in the query
 * as the UI reads them (`token`, `headers`, `url`). The result holds the token: treat it as a
 * secret (do not log it, do not put it where others see it).
 */
export async function inspectorUrl(options: InspectorUrlOptions): Promise<string> {
  const token = typeof options.token === "function" ? await options.token() : options.token;
  const query = new URLSearchParams();
  if (options.serverUrl) query.set("url", options.serverUrl);
  if (token) query.set("token", token);
  if (options.headers && Object.keys(options.headers).length > 0) query.set("headers", JSON.stringify(options.headers));
  const search = query.toString();
  return `${options.baseUrl.replace(/\/+$/, "")}/ui/${search ? `?${search}` : ""}`;
}
