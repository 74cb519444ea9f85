// HTTP helpers shared by both layers: headers (merged case-insensitively, CR/LF refused), bearer
// tokens, URLs with queries, and reading an error body as problem+json or capped text.
import { AcpInvalidHeaderError } from "./errors.js";

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

/**
 * A bearer token, or a function that yields the current one (called before every
 * request, so tokens can rotate). An empty or undefined token sends no `authorization`.
 */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** The token to send now; undefined when there is none. */
export async function resolveToken(token: TokenSource | undefined): Promise<string | undefined> {
  const value = typeof token === "function" ? await token() : token;
  return value === "" ? undefined : value;
}

/** Query values; `undefined` leaves a key out, booleans become `true`/`false`. */
export type QueryValues = Record<string, string | number | boolean | undefined>;

/**
 * Joins a base URL (origin and any path prefix) and a path with exactly one slash
 * between them, then appends the query (to any query the path already has).
 */
export function joinUrl(baseUrl: string, path: string, query?: QueryValues): string {
  const joined = `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return query ? withQuery(joined, query) : joined;
}

/** Appends `query` to `url`; an empty query leaves the URL as it was. */
export function withQuery(url: string, query: QueryValues): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.append(key, String(value));
  const text = search.toString();
  return text ? `${url}${url.includes("?") ? "&" : "?"}${text}` : url;
}

/** RFC 7807 problem details, as servers send them with `application/problem+json`. */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/** How much of a non-JSON error body an `AcpHttpError` keeps. */
const MAX_ERROR_BODY = 2000;

/** How much of an error body is read: problem details are small, and an error body may never end. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** A body read up to a bound: whole, or (`over`) cut once past it. */
export interface BoundedBody {
  /** The whole body, decoded as UTF-8; the decoded head when `over`. */
  text: string;
  /** Bytes read when the body went past the bound (the rest was cancelled, unread); else undefined. */
  over: number | undefined;
}

const utf8 = new TextDecoder();

/**
 * Reads a body through its reader, counting bytes: past `limit` it stops, cancels the rest and
 * keeps only the first `headBytes` (decoded), so a body that never ends cannot grow memory without
 * bound or leave its reader waiting. Read errors (an abort included) are thrown as they come.
 */
export async function readBounded(response: Response, limit: number, headBytes: number): Promise<BoundedBody> {
  const body = response.body;
  if (!body) return { text: "", over: undefined };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    chunks.push(value);
    if (bytes > limit) {
      reader.cancel().catch(() => undefined);
      return { text: utf8.decode(concat(chunks, Math.min(bytes, headBytes))), over: bytes };
    }
  }
  // One chunk (the usual small answer) is decoded as it came, without a copy.
  return { text: utf8.decode(chunks.length === 1 ? chunks[0] : concat(chunks, bytes)), over: undefined };
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= length) break;
    const part = chunk.byteLength <= length - at ? chunk : chunk.subarray(0, length - at);
    joined.set(part, at);
    at += part.byteLength;
  }
  return joined;
}

/**
 * Reads an error body once: problem+json (or any JSON object) becomes `problem`,
 * anything else (HTML, plain text) a capped `bodyText`.
 */
export async function readHttpProblem(
  response: Response,
): Promise<{ problem: ProblemDetails | undefined; bodyText: string | undefined }> {
  let text = "";
  try {
    text = (await readBounded(response, MAX_ERROR_BODY_BYTES, MAX_ERROR_BODY_BYTES)).text;
  } catch {
    // A body that cannot be read still leaves the status to report.
  }
  let problem: ProblemDetails | undefined;
  if (/json/i.test(response.headers.get("content-type") ?? "") && text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) problem = parsed as ProblemDetails;
    } catch {
      // Not JSON after all: keep it as text below.
    }
  }
  return { problem, bodyText: problem || !text ? undefined : text.slice(0, MAX_ERROR_BODY) };
}
