/**
 * Sandbox metadata travels in `_meta["sandboxagent.dev"]`. This module is the only
 * place that reads or writes that namespace. Everything that comes off the wire is
 * copied key by key into fresh objects with the prototype-polluting keys dropped,
 * so a hostile `__proto__` or `constructor` key cannot reach any prototype.
 */
export const SANDBOX_META_KEY = "sandboxagent.dev";

/** Session metadata: known keys typed, anything else passed through as sent. */
export interface SessionMetadata {
  title?: string | null;
  model?: string | null;
  mode?: string | null;
  variant?: string;
  permissionMode?: string;
  skills?: unknown;
  agent?: string;
  requestedSessionId?: string;
  agentVersionRequested?: string;
  [key: string]: unknown;
}

/** What the server adds to each listed session. */
export interface SessionRuntimeInfo {
  agent?: string;
  createdAt?: number;
  updatedAt?: number;
  ended?: boolean;
  eventCount?: number;
  model?: string;
}

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A field of loose JSON as a string, when it is one. */
export const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
/** A field of loose JSON as a number, when it is one. */
export const numberOf = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** A shallow copy without the keys that could reach a prototype. */
export function safeCopy(source: unknown): PlainObject {
  const out: PlainObject = {};
  if (!isPlainObject(source)) return out;
  for (const key of Object.keys(source)) {
    if (UNSAFE_KEYS.has(key)) continue;
    out[key] = source[key];
  }
  return out;
}

/**
 * Returns `meta` with `metadata` merged into its sandbox namespace (new values win),
 * leaving other namespaces as they were. Inputs are never mutated.
 */
export function withSandboxMeta(meta: unknown, metadata: SessionMetadata | undefined): PlainObject {
  const out = safeCopy(meta);
  const merged = { ...safeCopy(out[SANDBOX_META_KEY]), ...safeCopy(metadata) };
  if (Object.keys(merged).length > 0) out[SANDBOX_META_KEY] = merged;
  return out;
}

/** The sandbox namespace of a `_meta` object, as a safe copy (empty when absent). */
export function readSandboxMeta(meta: unknown): SessionMetadata {
  return safeCopy(isPlainObject(meta) ? meta[SANDBOX_META_KEY] : undefined);
}

/** Splits a listed session's sandbox metadata into what the caller set and what the server maintains. */
export function splitListedMetadata(meta: unknown): { metadata: SessionMetadata; runtime: SessionRuntimeInfo } {
  const metadata = readSandboxMeta(meta);
  const runtime: SessionRuntimeInfo = {};
  if (typeof metadata.agent === "string") runtime.agent = metadata.agent;
  if (typeof metadata.createdAt === "number") runtime.createdAt = metadata.createdAt;
  if (typeof metadata.updatedAt === "number") runtime.updatedAt = metadata.updatedAt;
  if (typeof metadata.ended === "boolean") runtime.ended = metadata.ended;
  if (typeof metadata.eventCount === "number") runtime.eventCount = metadata.eventCount;
  if (typeof metadata.model === "string") runtime.model = metadata.model;
  return { metadata, runtime };
}

/** Extension capabilities advertised in `agentCapabilities._meta["sandboxagent.dev"].extensions`. */
export interface SandboxExtensions {
  flags: Record<string, boolean>;
  methods: string[];
}

export function readExtensions(agentCapabilities: unknown): SandboxExtensions {
  const meta = isPlainObject(agentCapabilities) ? agentCapabilities._meta : undefined;
  const extensions = safeCopy(readSandboxMeta(meta).extensions);
  const flags: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(extensions)) if (typeof value === "boolean") flags[key] = value;
  const listed: unknown[] = Array.isArray(extensions.methods) ? extensions.methods : [];
  const methods = listed.filter((m): m is string => typeof m === "string");
  return { flags, methods };
}
