// The client's options checked and completed with their defaults (from defaults.ts, the one place
// they are set), and a health wait's: the parts take settings with every default filled in.
import { consoleLogger } from "../acp-http/index.js";
import type { Logger } from "./call-options.js";
import { CLIENT_DEFAULTS, HEALTH_WAIT_DEFAULTS } from "./defaults.js";
import { memoryStore } from "./persistence/memory-store.js";
import type { SessionStore } from "./persistence/store.js";
import type { HealthWaitOptions, SandboxAgentClientOptions } from "./types.js";

/** The client's options once checked, with the defaults filled in. */
export interface ClientSettings extends SandboxAgentClientOptions {
  autoConnect: boolean;
  /** Working directory for new sessions when a call does not give one. */
  cwd: string;
  protocolVersion: 1 | 2;
  store: SessionStore;
  /** Where `debug` sends its lines: the console for `true`, the given logger, or nowhere. */
  logger: Logger | undefined;
  /** What the client tells the agent it can present, each part decided. */
  shows: Required<NonNullable<SandboxAgentClientOptions["shows"]>>;
}

/** A health wait's options with every default filled in. */
export type HealthWaitSettings = Required<Omit<HealthWaitOptions, "signal">> & Pick<HealthWaitOptions, "signal">;

/** Fills in a health wait's defaults (`HEALTH_WAIT_DEFAULTS`). */
export function healthWaitSettings(options: HealthWaitOptions = {}): HealthWaitSettings {
  const defaults = HEALTH_WAIT_DEFAULTS;
  return {
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    path: options.path ?? defaults.path,
    initialDelayMs: options.initialDelayMs ?? defaults.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? defaults.maxDelayMs,
    attemptTimeoutMs: options.attemptTimeoutMs ?? defaults.attemptTimeoutMs,
    upStatuses: options.upStatuses ?? [],
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

const WHO = "SandboxAgentClient";

/**
 * Checks `options` as the constructor gets them (JavaScript callers included) and fills in the
 * defaults. A wrong option is a caller's bug, so it is a `TypeError` at construction that names the
 * option and what it takes, instead of a failure deep inside a later call (a missing `baseUrl`) or a
 * network error on the first request (a `htp://` typo).
 */
export function resolveClientOptions(options: SandboxAgentClientOptions): ClientSettings {
  if (!isObject(options)) {
    throw new TypeError(`${WHO}: options must be an object with at least baseUrl (got ${describe(options)})`);
  }
  const o = options as SandboxAgentClientOptions & Record<string, unknown>;
  checkBaseUrl(o.baseUrl);
  checkClientOptions(o);
  return {
    ...o,
    // Read once, as checked: every request carries these, whatever becomes of the caller's object.
    ...(o.headers ? { headers: { ...o.headers } } : {}),
    autoConnect: o.autoConnect ?? CLIENT_DEFAULTS.autoConnect,
    cwd: o.cwd ?? CLIENT_DEFAULTS.cwd,
    protocolVersion: o.protocolVersion ?? CLIENT_DEFAULTS.protocolVersion,
    shows: { ...CLIENT_DEFAULTS.shows, ...o.shows },
    store: o.store ?? memoryStore(),
    logger: o.debug === true ? consoleLogger("sandbox-agent") : o.debug || undefined,
  };
}

/**
 * Checks every option but `baseUrl` (which `SandboxAgentClient.start` learns only once its sandbox
 * is up): a mistake is then found before a sandbox is created for nothing.
 */
export function checkClientOptions(options: object): void {
  const o = options as Record<string, unknown>;
  optional(o, "agent", "a non-empty string (e.g. \"claude\")", (value) => typeof value === "string" && value !== "");
  if (o.token !== undefined && typeof o.token !== "string" && !isFunction(o.token)) {
    // Only the type: whatever was passed as a token may be a secret.
    fail("token", "a string or a function returning one", `${article(typeof o.token)} ${typeof o.token}`, false);
  }
  optional(o, "headers", "an object of string header values", isHeaders);
  optional(o, "fetch", "a function (a fetch implementation)", isFunction);
  optional(o, "WebSocket", "a WebSocket constructor", isFunction);
  optional(o, "autoConnect", "true or false", isBoolean);
  optional(o, "serverApi", "\"v1\" or \"v2\"", (value) => value === "v1" || value === "v2");
  optional(o, "serverId", "a non-empty string", (value) => typeof value === "string" && value !== "");
  optional(o, "cwd", "a string (a directory on the server)", (value) => typeof value === "string");
  optional(o, "protocolVersion", "1 or 2 (2: the ACP v2 draft, experimental)", (value) => value === 1 || value === 2);
  optional(o, "onPermissionRequest", 'a function or "ask"', (value) => value === "ask" || isFunction(value));
  optional(o, "onInput", 'a function or "ask"', (value) => value === "ask" || isFunction(value));
  for (const handler of ["onReadTextFile", "onWriteTextFile"] as const) {
    optional(o, handler, "a function", isFunction);
  }
  optional(o, "shows", "an object of true or false by part (compaction, notices, booleanOptions)", isShows);
  optional(o, "debug", "true, false or a logger with debug() and warn()", isDebug);
  optional(o, "store", "a session store (getSession, listSessions, updateSession, listEvents, insertEvent)", isStore);
  checkBounds(o, "waitForServer", ["initialDelayMs", "maxDelayMs", "attemptTimeoutMs"], true);
  checkBounds(o, "replay", ["maxChars", "maxEvents"], false);
  checkReconnect(o.reconnect);
}

function checkBaseUrl(baseUrl: unknown): void {
  const takes = 'the server\'s http(s) URL, e.g. "http://127.0.0.1:2468"';
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") fail("baseUrl", takes, baseUrl);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return fail("baseUrl", takes, baseUrl);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("baseUrl", takes, baseUrl);
  // A query or fragment would end up in the middle of every route's URL.
  if (url.search || url.hash) fail("baseUrl", `${takes}, without a query or fragment`, baseUrl);
  // fetch refuses such URLs, and error messages quote baseUrl: credentials go in token or headers.
  if (url.username || url.password) {
    const expected = `${takes}, without user:password (pass credentials as token or headers)`;
    fail("baseUrl", expected, "a URL with credentials", false);
  }
}

/** `reconnect`: false, or a policy whose numbers are non-negative (a factor of at least 1, jitter up to 1). */
function checkReconnect(reconnect: unknown): void {
  if (reconnect === undefined || reconnect === false) return;
  if (!isObject(reconnect)) fail("reconnect", "false or a policy object", reconnect);
  const policy = reconnect as Record<string, unknown>;
  for (const key of ["initialDelayMs", "maxDelayMs", "stallTimeoutMs"]) {
    if (policy[key] !== undefined && !isNonNegative(policy[key])) {
      fail(`reconnect.${key}`, "a non-negative number of milliseconds", policy[key]);
    }
  }
  const count = policy.maxRetries;
  if (count !== undefined && !(isNonNegative(count) && (Number.isInteger(count) || count === Infinity))) {
    fail("reconnect.maxRetries", "a non-negative whole number (or Infinity)", count);
  }
  if (policy.factor !== undefined && !(isNonNegative(policy.factor) && policy.factor >= 1)) {
    fail("reconnect.factor", "a number of at least 1", policy.factor);
  }
  if (policy.jitter !== undefined && !(isNonNegative(policy.jitter) && policy.jitter <= 1)) {
    fail("reconnect.jitter", "a number from 0 to 1", policy.jitter);
  }
}

/** An option that is an object of positive numbers (or, with `orBoolean`, also true or false). */
function checkBounds(o: Record<string, unknown>, name: string, keys: string[], orBoolean: boolean): void {
  const value = o[name];
  if (value === undefined || (orBoolean && isBoolean(value))) return;
  if (!isObject(value)) fail(name, orBoolean ? "true, false or an object of bounds" : "an object of bounds", value);
  const bounds = value as Record<string, unknown>;
  for (const key of keys) {
    const bound = bounds[key];
    if (bound !== undefined && !(isNonNegative(bound) && bound > 0)) fail(`${name}.${key}`, "a positive number", bound);
  }
}

function optional(o: Record<string, unknown>, name: string, takes: string, ok: (value: unknown) => boolean): void {
  if (o[name] !== undefined && !ok(o[name])) fail(name, takes, o[name]);
}

function fail(option: string, takes: string, got: unknown, quote = true): never {
  throw new TypeError(`${WHO}: option ${option} must be ${takes} (got ${quote ? describe(got) : String(got)})`);
}

/** The value as a message shows it; strings quoted, and never a token's content (only its type). */
function describe(value: unknown): string {
  if (typeof value === "string") return value.length > 80 ? `"${value.slice(0, 77)}..."` : JSON.stringify(value);
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  return Array.isArray(value) ? "an array" : `${article(typeof value)} ${typeof value}`;
}

const article = (word: string): string => (/^[aeiou]/.test(word) ? "an" : "a");

const isObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isFunction = (value: unknown): boolean => typeof value === "function";
const isBoolean = (value: unknown): boolean => typeof value === "boolean";
const isNonNegative = (value: unknown): value is number =>
  typeof value === "number" && !Number.isNaN(value) && value >= 0;
const isHeaders = (value: unknown): boolean =>
  isObject(value) && Object.values(value).every((header) => typeof header === "string");
const isDebug = (value: unknown): boolean =>
  isBoolean(value) ||
  (isObject(value) &&
    isFunction((value as { debug?: unknown }).debug) &&
    isFunction((value as { warn?: unknown }).warn));
const SHOWN = new Set(["compaction", "notices", "booleanOptions"]);
const isShows = (value: unknown): boolean =>
  isObject(value) &&
  Object.entries(value).every(([part, shown]) => SHOWN.has(part) && (shown === undefined || isBoolean(shown)));
const isStore = (value: unknown): boolean =>
  isObject(value) &&
  ["getSession", "listSessions", "updateSession", "listEvents", "insertEvent"].every((method) =>
    isFunction((value as Record<string, unknown>)[method]),
  );

export { CLIENT_DEFAULTS, HEALTH_WAIT_DEFAULTS } from "./defaults.js";
