// The session methods on the wire: what they take and give back, the shapes their results are
// checked against, and the calls themselves on a live connection (`session/new`, `session/prompt`, ...).
import * as v from "valibot";
import { SessionInfoSchema } from "../../acp-http/index.js";
import type { CallSignal, Logger } from "../call-options.js";
import type { SandboxConnection } from "../connection/connection.js";
import { validate } from "../server/control-plane.js";
import { stoppedBy } from "../deadline.js";
import { readSandboxMeta, safeCopy, splitListedMetadata, withSandboxMeta } from "../metadata.js";
import type { SessionMetadata, SessionRuntimeInfo } from "../metadata.js";

/** Where a new (or loaded) session works, its MCP servers, and the metadata to store with it. */
export interface NewSessionOptions {
  cwd?: string;
  /** More directories the session may work in beside `cwd` (absolute paths; agents that support it). */
  additionalDirectories?: string[];
  mcpServers?: Array<{ name: string; [key: string]: unknown }>;
  metadata?: SessionMetadata;
}

/** An open session: its id on the live connection, with what the agent answered when opening it. */
export interface SessionHandle {
  sessionId: string;
  /** Metadata the agent echoed back in the sandbox namespace, if any. */
  metadata: SessionMetadata;
  modes?: unknown;
  models?: unknown;
  configOptions?: unknown;
  /** Everything else the agent answered, untouched. */
  raw: Record<string, unknown>;
}

/** How a turn ended (`end_turn`, `cancelled`, `max_tokens`, ...), with the agent's whole answer. */
export interface PromptOutcome {
  stopReason: string;
  raw: Record<string, unknown>;
}

/** One session of `listSessions()`: the agent's fields with the server's runtime info and the stored metadata. */
export interface SessionListing extends SessionRuntimeInfo {
  sessionId: string;
  cwd?: string;
  /** The directories the session may work in beside `cwd`, when the agent lists them. */
  additionalDirectories?: string[];
  title?: string | null;
  /** Caller-set metadata (title, variant, permissionMode, skills, ... as stored). */
  metadata: SessionMetadata;
}

export interface SessionList {
  sessions: SessionListing[];
  nextCursor: string | null;
}

export interface ModelInfo {
  modelId: string;
  name?: string | null;
  description?: string | null;
  [key: string]: unknown;
}

export interface ModelList {
  availableModels: ModelInfo[];
  currentModelId: string | null;
}

export interface TerminateResult {
  terminated: boolean;
  alreadyEnded: boolean;
  reason?: string;
  terminatedBy?: string;
}

export const NewSessionWireSchema = v.looseObject({ sessionId: v.string(), _meta: v.optional(v.unknown()) });
export const PromptWireSchema = v.looseObject({ stopReason: v.string() });
export const ListWireSchema = v.looseObject({
  sessions: v.array(SessionInfoSchema),
  nextCursor: v.optional(v.nullable(v.string())),
});
export const ModelsWireSchema = v.looseObject({
  availableModels: v.array(
    v.looseObject({
      modelId: v.optional(v.string()),
      id: v.optional(v.string()),
      name: v.optional(v.nullable(v.string())),
    }),
  ),
  currentModelId: v.optional(v.nullable(v.string())),
});
export const TerminateWireSchema = v.looseObject({
  terminated: v.boolean(),
  alreadyEnded: v.optional(v.boolean()),
  reason: v.optional(v.string()),
  terminatedBy: v.optional(v.string()),
});

/** One block of a prompt: `{ type: "text", text }`, or any other content type the agent accepts. */
export interface PromptBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A prompt: plain text, or ACP content blocks (text, images, resources). */
export type PromptInput = string | PromptBlock[];

type PlainParams = Record<string, unknown>;

/**
 * Session methods as thin conversions: sandbox arguments in, the protocol method or
 * `_sandboxagent/*` extension named by the specification out, sandbox results back.
 */

export function toPromptBlocks(prompt: PromptInput): PromptBlock[] {
  return typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
}

/** `session/new`: a fresh session in `cwd`, with the caller's metadata under the sandbox namespace. */
export async function newSession(
  conn: SandboxConnection,
  options: NewSessionOptions,
  defaultCwd: string,
  call?: CallSignal,
): Promise<SessionHandle> {
  const result = await conn.call("session/new", sessionParams(conn, options, defaultCwd), call);
  const sessionId = validate("newSession", NewSessionWireSchema, result).sessionId;
  return opened(conn, sessionId, result);
}

/**
 * Whether this connection reopens an agent's session with `session/resume` (the version's traits): the
 * ACP v2 draft has no `session/load` (its resume replays the history when asked to, `replayFrom`); v1 loads.
 */
export function resumesSessions(conn: SandboxConnection): boolean {
  return conn.traits.reopensWithResume;
}

/** Where a load's replay starts on a connection that resumes (`resumesSessions`): the whole history. */
export const REPLAY_FROM_START = { type: "start" } as const;

/**
 * An existing session opened on this connection with its history replayed: `session/load`, or on the
 * v2 draft `session/resume` with `replayFrom`. Its result carries no id, the request does.
 */
export async function loadSession(
  conn: SandboxConnection,
  sessionId: string,
  options: NewSessionOptions,
  defaultCwd: string,
  call?: CallSignal,
): Promise<SessionHandle> {
  const params = { sessionId, ...sessionParams(conn, options, defaultCwd) };
  const result = resumesSessions(conn)
    ? await conn.call("session/resume", { ...params, replayFrom: REPLAY_FROM_START }, call, "loadSession")
    : await conn.call("session/load", params, call);
  return opened(conn, sessionId, result);
}

function sessionParams(conn: SandboxConnection, options: NewSessionOptions, defaultCwd: string): PlainParams {
  // The connection's agent wins: one client drives one agent, and v2 refuses a session/new without it.
  const { profile, agent } = conn.settings;
  const metadata = profile.agentInMeta ? { ...options.metadata, agent } : options.metadata;
  const cwd = options.cwd ?? defaultCwd;
  const meta = withSandboxMeta(undefined, metadata);
  return { cwd, ...directories(options.additionalDirectories), mcpServers: options.mcpServers ?? [], _meta: meta };
}

/** Where a session works: its directory and, when given, more directories beside it. */
export interface SessionPlace {
  cwd: string;
  additionalDirectories?: string[] | undefined;
}

// Sent only when there are some: an agent that does not know the field never sees it.
function directories(list: string[] | undefined): PlainParams {
  return list && list.length > 0 ? { additionalDirectories: [...list] } : {};
}

function opened(conn: SandboxConnection, sessionId: string, result: unknown): SessionHandle {
  conn.openSessions.add(sessionId);
  const raw = (result ?? {}) as Record<string, unknown>;
  return {
    sessionId,
    metadata: readSandboxMeta(raw._meta),
    ...(raw.modes !== undefined ? { modes: raw.modes } : {}),
    ...(raw.models !== undefined ? { models: raw.models } : {}),
    ...(raw.configOptions !== undefined ? { configOptions: raw.configOptions } : {}),
    raw,
  };
}

/**
 * `session/prompt`. When the call's signal aborts (its deadline included) before the outcome, the
 * turn is cancelled on the server too (`session/cancel`): a turn given up must not keep running (and
 * refuse the session's next prompt). A timeout still fails as `CallTimeoutError`.
 */
export async function prompt(
  conn: SandboxConnection,
  sessionId: string,
  input: PromptInput,
  call: CallSignal = {},
  logger?: Logger,
): Promise<PromptOutcome> {
  const cancel = (): void => {
    conn.notify("session/cancel", { sessionId }).catch((error: unknown) => {
      logger?.warn("cancel after an aborted or timed-out prompt failed", { error: (error as Error).message });
    });
  };
  // The call's signal carries its deadline (made at the boundary): the turn is cancelled whichever ends it.
  const { signal } = call;
  if (signal?.aborted) throw stoppedBy(signal.reason, "prompt");
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    const params = { sessionId, prompt: toPromptBlocks(input) };
    const answer = await conn.call("session/prompt", params, call);
    const result = validate("prompt", PromptWireSchema, answer);
    return { stopReason: result.stopReason, raw: result };
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

/** `session/fork`: a new session that starts from `sessionId`'s history. */
export async function forkSession(
  conn: SandboxConnection,
  sessionId: string,
  place: SessionPlace,
  call?: CallSignal,
): Promise<SessionHandle> {
  const params = { sessionId, cwd: place.cwd, ...directories(place.additionalDirectories), mcpServers: [] };
  const forked = await conn.call("session/fork", params, call);
  return opened(conn, validate("forkSession", NewSessionWireSchema, forked).sessionId, forked);
}

/** ACP `session/resume`: the agent's session opened on this connection, without a replay of its history. */
export async function resumeSession(
  conn: SandboxConnection,
  sessionId: string,
  place: SessionPlace,
  call?: CallSignal,
): Promise<SessionHandle> {
  const params = { sessionId, cwd: place.cwd, ...directories(place.additionalDirectories), mcpServers: [] };
  return opened(conn, sessionId, await conn.call("session/resume", params, call));
}

/** `session/delete`: the agent forgets the session (it leaves `listSessions`); it is no longer open here. */
export async function deleteSession(conn: SandboxConnection, sessionId: string, call?: CallSignal): Promise<void> {
  await conn.call("session/delete", { sessionId }, call);
  conn.openSessions.delete(sessionId);
}

/** `logout`: the agent drops its sign-in; new sessions need it again. */
export async function logout(conn: SandboxConnection, call?: CallSignal): Promise<void> {
  await conn.call("logout", {}, call);
}

export async function listSessions(
  conn: SandboxConnection,
  params: { cwd?: string; cursor?: string },
  call?: CallSignal,
): Promise<SessionList> {
  const result = validate("listSessions", ListWireSchema, await conn.call("session/list", params, call));
  return {
    sessions: result.sessions.map((entry) => {
      const { metadata, runtime } = splitListedMetadata(entry._meta);
      const title = entry.title ?? (typeof metadata.title === "string" ? metadata.title : undefined);
      return {
        sessionId: entry.sessionId,
        ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
        ...(entry.additionalDirectories?.length ? { additionalDirectories: entry.additionalDirectories } : {}),
        ...(title !== undefined ? { title } : {}),
        ...runtime,
        metadata,
      };
    }),
    nextCursor: result.nextCursor ?? null,
  };
}

export async function listModels(
  conn: SandboxConnection,
  sessionId: string | undefined,
  call?: CallSignal,
): Promise<ModelList> {
  const method = "_sandboxagent/session/list_models";
  conn.requireExtension("listModels", "sessionListModels", method);
  const params = { ...(sessionId ? { sessionId } : {}), agent: conn.settings.agent };
  const result = validate("listModels", ModelsWireSchema, await conn.call(method, params, call));
  return {
    availableModels: result.availableModels.map(({ id, modelId, ...rest }) => ({
      ...rest,
      modelId: modelId ?? id ?? "",
    })),
    currentModelId: result.currentModelId ?? null,
  };
}

export async function setMetadata(
  conn: SandboxConnection,
  sessionId: string,
  metadata: SessionMetadata,
  call?: CallSignal,
): Promise<void> {
  const method = "_sandboxagent/session/set_metadata";
  conn.requireExtension("setMetadata", "sessionSetMetadata", method);
  await conn.call(method, { sessionId, metadata: safeCopy(metadata) }, call);
}

export async function detachSession(conn: SandboxConnection, sessionId: string, call?: CallSignal): Promise<void> {
  const method = "_sandboxagent/session/detach";
  conn.requireExtension("detachSession", "sessionDetach", method);
  await conn.call(method, { sessionId }, call);
  conn.openSessions.delete(sessionId);
}

export async function terminateSession(
  conn: SandboxConnection,
  sessionId: string,
  call?: CallSignal,
): Promise<TerminateResult> {
  const method = "_sandboxagent/session/terminate";
  conn.requireExtension("terminateSession", "sessionTerminate", method);
  const result = validate("terminateSession", TerminateWireSchema, await conn.call(method, { sessionId }, call));
  return {
    terminated: result.terminated,
    alreadyEnded: result.alreadyEnded ?? !result.terminated,
    ...(result.reason !== undefined ? { reason: result.reason } : {}),
    ...(result.terminatedBy !== undefined ? { terminatedBy: result.terminatedBy } : {}),
  };
}
