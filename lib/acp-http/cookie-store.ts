/**
 * Affinity cookies for one connection. The ACP transport RFD wants a remote client to
 * accept, store and return cookies for the whole connection, so that a load balancer's
 * sticky-session cookie routes every POST, GET, DELETE and WebSocket upgrade to the same
 * backend. Only `name=value` is kept: this is routing state, not a browser cookie jar
 * (no domain or path matching, no `Secure`/`HttpOnly`/`SameSite`); a cookie the server
 * expires (`Max-Age` <= 0 or an `Expires` in the past) is forgotten.
 *
 * The method names match `AcpCookieStore` of `@agentclientprotocol/sdk`, so a store of
 * either library can be passed to the other.
 */
export interface AcpCookieStore {
  /** Takes the `Set-Cookie` headers of a response (or of a WebSocket 101). */
  store(headers: Headers): void;
  /** Adds the stored cookies to a request's `Cookie` header (cookies already there win). */
  apply(headers: Headers): void;
  /** Forgets every cookie. */
  clear(): void;
}

/** An in-memory {@link AcpCookieStore}: the default in Node, where fetch keeps no cookies. */
export class MemoryCookieStore implements AcpCookieStore {
  readonly #cookies = new Map<string, string>();

  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) {
      const cookie = parseSetCookie(line);
      if (!cookie) continue;
      if (cookie.expired) this.#cookies.delete(cookie.name);
      else this.#cookies.set(cookie.name, cookie.value);
    }
  }

  apply(headers: Headers): void {
    const header = mergeCookieHeader(headers.get("cookie"), this.#cookies);
    if (header !== undefined) headers.set("cookie", header);
  }

  clear(): void {
    this.#cookies.clear();
  }

  /** How many cookies are stored (for tests and diagnostics; values are never exposed). */
  get size(): number {
    return this.#cookies.size;
  }

  /** Names only: cookie values may be credentials and must not reach logs. */
  toString(): string {
    return `MemoryCookieStore(${[...this.#cookies.keys()].join(", ")})`;
  }
}

/**
 * The store to use when the caller gave none: in-memory where the runtime keeps no
 * cookies (Node, Deno, Bun), none in a browser, whose fetch (`credentials: "include"`)
 * and WebSocket already use the page's cookie jar and hide `Set-Cookie` from scripts.
 */
export function defaultCookieStore(): AcpCookieStore | undefined {
  return "document" in globalThis ? undefined : new MemoryCookieStore();
}

/** Headers as a `Headers`, from a plain record such as Node's `IncomingMessage.headers`. */
export function headersFrom(record: Readonly<Record<string, string | string[] | undefined>>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return headers;
}

interface ParsedCookie {
  name: string;
  value: string;
  expired: boolean;
}

function setCookieLines(headers: Headers): string[] {
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie();
  const joined = headers.get("set-cookie");
  // Without getSetCookie the lines come joined by ", ": split only where a new name= starts
  // (an Expires date holds a comma too).
  return joined ? joined.split(/,(?=\s*[^;,=\s]+=)/) : [];
}

function parseSetCookie(line: string): ParsedCookie | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const equals = pair.indexOf("=");
  if (equals <= 0) return undefined;
  const name = pair.slice(0, equals).trim();
  const value = pair.slice(equals + 1).trim();
  if (!name) return undefined;
  return { name, value, expired: isExpired(attributes) };
}

function isExpired(attributes: string[]): boolean {
  for (const attribute of attributes) {
    const equals = attribute.indexOf("=");
    const key = (equals < 0 ? attribute : attribute.slice(0, equals)).trim().toLowerCase();
    const value = equals < 0 ? "" : attribute.slice(equals + 1).trim();
    // Max-Age wins over Expires when both are present (RFC 6265 §5.3).
    if (key === "max-age" && /^-?\d+$/.test(value)) return Number(value) <= 0;
  }
  for (const attribute of attributes) {
    const [key = "", ...rest] = attribute.split("=");
    if (key.trim().toLowerCase() !== "expires") continue;
    const when = Date.parse(rest.join("=").trim());
    if (!Number.isNaN(when)) return when <= Date.now();
  }
  return false;
}

function mergeCookieHeader(existing: string | null, cookies: ReadonlyMap<string, string>): string | undefined {
  if (cookies.size === 0) return undefined;
  const present = new Set(
    (existing ?? "")
      .split(";")
      .map((pair) => pair.split("=")[0]?.trim())
      .filter(Boolean),
  );
  const added = [...cookies].filter(([name]) => !present.has(name)).map(([name, value]) => `${name}=${value}`);
  if (added.length === 0) return undefined;
  return existing ? `${existing}; ${added.join("; ")}` : added.join("; ");
}
