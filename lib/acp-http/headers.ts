import { AcpInvalidHeaderError } from "./errors/invalid-header-error.js";

/**
 * Header sets merged the way HTTP reads them: names are case-insensitive, so a user's
 * `Content-Type` and our `content-type` are one header, never two joined values.
 * Precedence, lowest first: the user's headers, then the bearer token (it replaces a
 * user `authorization`), then the client's own (content-type, accept, connection id).
 */
export interface HeaderSets {
  /** Headers the user configured; the lowest precedence. */
  user?: HeadersInit | undefined;
  /** A bearer token: sent as `authorization: Bearer …`, replacing a user `authorization`. */
  token?: string | undefined;
  /** The client's own headers; they win. An undefined value leaves the header out. */
  own?: Record<string, string | undefined> | undefined;
}

const CRLF = /[\r\n]/;

/** Refuses a name or value with CR or LF (request splitting); the value is never echoed. */
export function assertHeaderValue(name: string, value: string): void {
  if (CRLF.test(value) || CRLF.test(name)) throw new AcpInvalidHeaderError(name);
}

/**
 * Checks every header of a set before `Headers` sees it: `Headers` trims CR/LF at the
 * ends of a value silently, which would hide a value that was meant to split the request.
 */
export function assertHeaders(init: HeadersInit | undefined): void {
  for (const [name, value] of headerEntries(init)) assertHeaderValue(name, value);
}

/** Merges the sets into one `Headers` (see `HeaderSets` for the precedence). */
export function mergeHeaders(sets: HeaderSets): Headers {
  const headers = new Headers();
  for (const [name, value] of headerEntries(sets.user)) {
    assertHeaderValue(name, value);
    headers.set(name, value);
  }
  if (sets.token) {
    assertHeaderValue("authorization", sets.token);
    headers.set("authorization", `Bearer ${sets.token}`);
  }
  for (const [name, value] of Object.entries(sets.own ?? {})) {
    if (value === undefined) continue;
    assertHeaderValue(name, value);
    headers.set(name, value);
  }
  return headers;
}

function headerEntries(init: HeadersInit | undefined): [string, string][] {
  if (init === undefined) return [];
  if (Array.isArray(init)) return init.map(([name, value]) => [String(name), String(value)]);
  if (init instanceof Headers) return [...init.entries()];
  return Object.entries(init as Record<string, string>).map(([name, value]) => [name, String(value)]);
}
