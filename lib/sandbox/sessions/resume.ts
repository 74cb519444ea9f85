import type { AcpRequest } from "../../acp-http/index.js";
import type { CallOptions, CallSignal, Logger } from "../call-options.js";
import { StoreError } from "../errors.js";
import { Bound, stoppedBy } from "../deadline.js";
import { untilAborted } from "../../internal/abort.js";
import type { ClaimOptions } from "../persistence/lease-keeper.js";
import type { AttachTarget, ConnectionLifecycle } from "../connection/lifecycle.js";
import * as calls from "./session-calls.js";
import type { SessionSettings, SessionState } from "./session-config.js";
import type { NewSessionOptions, SessionHandle } from "./session-calls.js";
import { replayFromStore, type ReplayText } from "../persistence/replay.js";
import type { SessionEvent, SessionRecord } from "../persistence/schemas.js";
import { readStored } from "../transcript/index.js";
import { connectionKey, type SessionRecording } from "./session-recording.js";

/**
 * How a stored session came back: `attached` (the live connection already is its connection),
 * `reattached` (the stored connection, resumed from its `Last-Event-ID`), `loaded` (a new
 * connection and `session/load`), `resumed` (a new connection and the agent's `session/resume`: the
 * ACP v2 draft, which has no load), `replayed` (a new session; its history goes ahead of the next prompt).
 */
export type ResumeMethod = "attached" | "reattached" | "loaded" | "resumed" | "replayed";

/** A stored session open again: `sessionId` is the agent's id on the live connection, `localId` the stored one. */
export interface ResumedSession extends SessionHandle {
  localId: string;
  resumedBy: ResumeMethod;
  /** With `replayed`: the text that the next prompt will carry ahead of the user's text. */
  replay?: ReplayText;
}

/** `restoreSessions` options: the call's bounds, and `claim` to resume only the sessions this worker claims. */
export interface RestoreOptions extends CallOptions {
  /** Claim sessions through leases (see `ClaimOptions`); `true` for the defaults. */
  claim?: boolean | ClaimOptions;
}

/** The parts a resume works with: the client's sessions part implements it (`Sessions`). */
export interface ResumeParts {
  readonly lifecycle: ConnectionLifecycle;
  readonly recording: SessionRecording;
  readonly settings: SessionSettings;
  /** The client's working directory, for a session stored without one. */
  readonly cwd: string;
  readonly logger: Logger | undefined;
}

/**
 * A store read inside the user's call `name` (`resumeSession`, `restoreSessions`): its failure is a
 * `StoreError` whose message names that call (and the session), the store's error as `cause`.
 */
export async function fromStore<T>(
  name: string,
  sessionId: string | undefined,
  read: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  try {
    // A store that never answers (a database gone quiet) holds the call no longer than its deadline.
    return await untilAborted(read(), signal, (reason) => stoppedBy(reason, name));
  } catch (error) {
    if (signal?.aborted) throw stoppedBy(signal.reason, name);
    throw StoreError.during(name, error, sessionId);
  }
}

/**
 * The user's call `name` (`resumeSession`, `restoreSessions`) under one deadline: its `{ signal,
 * timeoutMs }` made one signal here, which every step below (store reads, connects, the session
 * calls) shares, so the steps do not each get the whole `timeoutMs`. Once it fires, the call fails
 * with its `CallTimeoutError` (or `CallAbortedError`), whatever step it stopped.
 */
export async function bounded<T>(
  name: string,
  call: CallOptions | undefined,
  run: (call: CallSignal) => Promise<T>,
): Promise<T> {
  const bound = new Bound(name, call);
  try {
    return await run(bound.call);
  } catch (error) {
    if (bound.signal?.aborted) throw bound.error(bound.signal.reason);
    throw error;
  } finally {
    bound.dispose();
  }
}

/** Connects when there is no connection (to `target`); resolves false when that attempt failed. */
function connectTo(lifecycle: ConnectionLifecycle, target: AttachTarget, call?: CallOptions): Promise<boolean> {
  return lifecycle.connectFor("resumeSession", target, call).then(
    () => true,
    () => false,
  );
}

/**
 * Gives the session its stored modes and options: re-applied when the agent opened it afresh
 * (`result` is its load or creation answer), only taken as known when it never lost them (`result`
 * undefined). Resolves with what the session has then; a value not re-applied is logged.
 */
async function restoreConfig(
  parts: ResumeParts,
  agentSessionId: string,
  result: unknown,
  record: SessionRecord,
  call?: CallOptions,
): Promise<SessionState> {
  const { state, failures } = await parts.settings.restoreStored(agentSessionId, result, record, call);
  for (const error of failures) {
    parts.logger?.warn("a stored session setting was not re-applied", {
      id: agentSessionId,
      error: (error as Error).message,
    });
  }
  return state;
}

/** What the stored history of a session says before it is opened again (see `adopt`). */
interface Adopted {
  /** The connection stream's last stored cursor. */
  lastEventId: string | undefined;
  /** The agent's requests still waiting for the user (see `WaitingRequests`). */
  waiting: StoredRequest[];
}

/** A waiting request of the agent, and the connection stream's cursor it was stored at (when it has one). */
interface StoredRequest {
  request: AcpRequest;
  cursor: string | undefined;
}

/**
 * Maps a stored session (with the ids already stored, so a replayed stream is recognised) before any
 * connection can replay its events. It also notes whether the stored history ends inside a turn (a
 * prompt without its end): an earlier client sent that prompt, and its answer, if it comes, is for
 * this session (see `SessionRecording.adopt`); and which of the agent's requests that client left
 * unanswered.
 */
async function adopt(recording: SessionRecording, record: SessionRecord, signal?: AbortSignal): Promise<Adopted> {
  // Each read raced against the call's deadline, so a stopped call reads no further page.
  const read = <T>(pending: Promise<T>): Promise<T> => untilAborted(pending, signal, (reason) => reason as Error);
  await read(recording.flush());
  const seen = new Set<string>();
  const prefix = `sse:${record.lastConnectionId}:connection:`;
  const waiting = new WaitingRequests();
  let lastEventId = record.lastEventId;
  let midTurn = false;
  let cursor: string | undefined;
  do {
    const request = { sessionId: record.id, limit: 1000, ...(cursor ? { cursor } : {}) };
    const page = await read(recording.store.listEvents(request));
    for (const event of page.items) {
      seen.add(event.id);
      if (event.id.startsWith(prefix)) lastEventId = event.id.slice(prefix.length);
      midTurn = turnOpenAfter(event.sender, event.payload as Record<string, unknown>, midTurn);
      waiting.read(event);
      recording.readStored(record.agentSessionId, event);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  recording.adopt(record, seen, midTurn, lastEventId);
  const requests = waiting.stored().map((event) => ({
    request: event.payload as unknown as AcpRequest,
    cursor: event.id.startsWith(prefix) ? event.id.slice(prefix.length) : undefined,
  }));
  return { lastEventId, waiting: requests };
}

/**
 * The agent's requests for the user (a permission, a question) in a stored history, oldest first,
 * that have no stored answer and whose turn has no stored end. On the stored server connection they
 * still wait: an earlier client (a page since reloaded) received them and never answered. Matched
 * as the transcript matches them (a permission by its tool call, a question by its request id), so
 * what the reopened transcript shows pending is what this client's desks take over.
 */
export class WaitingRequests {
  readonly #waiting = new Map<string, SessionEvent>();

  /** One stored event, oldest first. */
  read(event: SessionEvent): void {
    const read = readStored(event);
    if (typeof read !== "object") return;
    switch (read.kind) {
      case "permission-request":
        this.#waiting.set(`permission:${read.toolCall.toolCallId}`, event);
        return;
      case "input-request":
        this.#waiting.set(`input:${read.requestId}`, event);
        return;
      case "permission-answered":
        this.#waiting.delete(`permission:${read.toolCallId}`);
        return;
      case "input-answered":
        this.#waiting.delete(`input:${read.requestId}`);
        return;
      case "turn-ended":
      case "turn-failed":
      case "session-ended":
      case "agent-exited":
        this.#waiting.clear();
        return;
    }
  }

  /** The requests still waiting, in the order they came. */
  requests(): AcpRequest[] {
    return this.stored().map((event) => event.payload as unknown as AcpRequest);
  }

  /** The stored events of the requests still waiting, in the order they came. */
  stored(): SessionEvent[] {
    return [...this.#waiting.values()];
  }
}

/**
 * Whether a turn is open after this stored event: a prompt opens one; its stored end (v2 draft: the
 * agent's `idle`), or the session's, closes it.
 */
function turnOpenAfter(sender: string, payload: Record<string, unknown>, open: boolean): boolean {
  if (sender === "client") return payload.method === "session/prompt" ? true : open;
  if (payload.method === undefined) {
    const result = payload.result as { stopReason?: unknown } | undefined;
    return typeof result?.stopReason === "string" || payload.error !== undefined ? false : open;
  }
  if (payload.method === "session/update") {
    const update = (payload.params as { update?: { sessionUpdate?: unknown; state?: unknown } } | undefined)?.update;
    return update?.sessionUpdate === "state_update" && update.state === "idle" ? false : open;
  }
  return payload.method === "_sandboxagent/session/ended" ? false : open;
}

/**
 * Whether the connection's stream brings a stored request back itself: the stream replays the
 * events after the cursor it was opened from (all the server still holds when it was opened
 * without one). Such a request is the stream's to deliver; adopting it as well would handle it
 * twice when the copy arrives after the adopted one's answer (the id is then free for the agent
 * to reuse, so the copy counts as new). A cursor that cannot be compared (not numeric) is adopted:
 * a copy that came first is then the one taken (`adoptAgentRequest` ignores an id already received).
 */
export function replayedBy(from: string | undefined, cursor: string | undefined): boolean {
  const numeric = (value: string | undefined) => value !== undefined && /^\d+$/.test(value);
  if (!numeric(cursor)) return false;
  if (from === undefined) return true;
  return numeric(from) && Number(cursor) > Number(from);
}

/** The earlier of two stream cursors (numeric when both are; an unknown one means "from the start"). */
function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return undefined;
  return /^\d+$/.test(a) && /^\d+$/.test(b) && Number(b) < Number(a) ? b : a;
}

/**
 * Opens a stored session again (see `ResumeMethod` for the order tried); undefined when the store has
 * no record of `localId`. Reattaching needs the client not to be connected yet (one connection per
 * client): a connected client goes straight to `session/load` or a replay on its live connection.
 */
export async function resumeStored(
  parts: ResumeParts,
  localId: string,
  call: CallSignal,
  prepared?: { record: SessionRecord } & Adopted,
  /** The caller's directories for the session, over the stored ones. */
  directories?: string[],
): Promise<ResumedSession | undefined> {
  const { recording, lifecycle, cwd } = parts;
  const name = "resumeSession";
  const { signal } = call;
  const stored = () => fromStore(name, localId, () => recording.store.getSession(localId), signal);
  const record = prepared?.record ?? recording.record(localId) ?? (await stored());
  if (!record) return undefined;
  const { lastEventId, waiting } =
    prepared ?? (await fromStore(name, localId, () => adopt(recording, record, signal), signal));
  let reattached = false;
  // After the caller's disconnect() a resume opens no connection: it fails as the session calls do.
  lifecycle.checkNotHeldDown(name);
  if (!lifecycle.connected) {
    const target = { connection: record.lastConnectionId, ...(lastEventId ? { lastEventId } : {}) };
    reattached = await connectTo(lifecycle, target, call);
    if (!reattached) await connectTo(lifecycle, { fresh: true }, call);
  }
  const options: NewSessionOptions = {
    ...(typeof record.sessionInit?.cwd === "string" ? { cwd: record.sessionInit.cwd } : {}),
    ...(Array.isArray(record.sessionInit?.mcpServers)
      ? { mcpServers: record.sessionInit.mcpServers as NewSessionOptions["mcpServers"] }
      : {}),
    ...(record.metadata ? { metadata: record.metadata as NewSessionOptions["metadata"] } : {}),
  };
  const storedDirectories = record.sessionInit?.additionalDirectories;
  const additionalDirectories = directories ??
    (Array.isArray(storedDirectories) ? storedDirectories.filter((d): d is string => typeof d === "string") : []);
  if (additionalDirectories.length > 0) options.additionalDirectories = additionalDirectories;
  const resumed = await lifecycle.with("resumeSession", call, async (conn, bounds) => {
    if (connectionKey(conn) === record.lastConnectionId) {
      conn.openSessions.add(record.agentSessionId);
      // Still the connection the agent asked on: what an earlier client left unanswered is answered
      // from here (the user's reply, or `cancelled` with the turn), under the request's own id.
      // Those the stream replays are left to it (see `replayedBy`): each is taken once.
      for (const { request, cursor } of waiting) {
        if (!replayedBy(conn.settings.lastEventId, cursor)) conn.protocol.adoptAgentRequest(request);
      }
      const handle = { sessionId: record.agentSessionId, metadata: {}, raw: {} };
      return { ...handle, localId, resumedBy: reattached ? "reattached" : "attached" } satisfies ResumedSession;
    }
    recording.caughtUp(record.agentSessionId);
    if (calls.resumesSessions(conn)) {
      // The v2 draft: the agent's `session/resume`, without a replay (the store holds the history).
      const place = { cwd: options.cwd ?? cwd, additionalDirectories: options.additionalDirectories };
      const handle = await calls.resumeSession(conn, record.agentSessionId, place, bounds);
      recording.turnLost(record.agentSessionId, "resumed");
      recording.opened(conn, handle, options, cwd, localId);
      return { ...handle, localId, resumedBy: "resumed" } satisfies ResumedSession;
    }
    if (conn.canLoadSession) {
      // The agent replays the history it has: the store holds it already, so it is neither stored again nor emitted.
      recording.mute(record.agentSessionId, true);
      try {
        const handle = await calls.loadSession(conn, record.agentSessionId, options, cwd, bounds);
        recording.turnLost(record.agentSessionId, "loaded");
        recording.opened(conn, handle, options, cwd, localId);
        return { ...handle, localId, resumedBy: "loaded" } satisfies ResumedSession;
      } finally {
        recording.mute(record.agentSessionId, false);
      }
    }
    let replay: ReplayText | null = null;
    try {
      replay = await replayFromStore(recording.store, localId, recording.replay);
    } catch (error) {
      recording.report(error, `could not read session ${localId} for its replay`);
    }
    const handle = await calls.newSession(conn, options, cwd, bounds);
    recording.turnLost(record.agentSessionId, "replayed");
    recording.opened(conn, handle, options, cwd, localId);
    recording.setReplay(localId, replay);
    return { ...handle, localId, resumedBy: "replayed", ...(replay ? { replay } : {}) } satisfies ResumedSession;
  });
  // A session the agent still has (attached, reattached) kept its configuration; a loaded or new one
  // may have started over (the 0.4.2 server's agent process is new), so the stored values are sent.
  const fresh = resumed.resumedBy === "loaded" || resumed.resumedBy === "resumed" || resumed.resumedBy === "replayed";
  const state = await restoreConfig(parts, resumed.sessionId, fresh ? resumed.raw : undefined, record, call);
  return { ...resumed, ...state };
}

/**
 * Every stored session that has not ended (or those of `ids`: the sessions this worker claimed),
 * resumed one after another (see `resumeStored`).
 */
export async function restoreStored(parts: ResumeParts, call: CallSignal, ids?: string[]): Promise<ResumedSession[]> {
  const records: SessionRecord[] = [];
  const { store } = parts.recording;
  const name = "restoreSessions";
  const { signal } = call;
  if (ids) {
    for (const id of ids) {
      const record = await fromStore(name, id, () => store.getSession(id), signal);
      if (record && record.endedAt === undefined) records.push(record);
    }
  } else {
    let cursor: string | undefined;
    do {
      const request = { limit: 1000, ...(cursor ? { cursor } : {}) };
      const page = await fromStore(name, undefined, () => store.listSessions(request), signal);
      records.push(...page.items.filter((record) => record.endedAt === undefined));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }
  // Every session is mapped before the first connection is made: sessions that share the stored
  // connection all see its replay, which starts at the earliest of their cursors.
  const cursors = new Map<string, string | undefined>();
  const waiting = new Map<string, StoredRequest[]>();
  for (const record of records) {
    const adopted = await fromStore(name, record.id, () => adopt(parts.recording, record, signal), signal);
    const key = record.lastConnectionId;
    cursors.set(key, cursors.has(key) ? earlier(cursors.get(key), adopted.lastEventId) : adopted.lastEventId);
    waiting.set(record.id, adopted.waiting);
  }
  const resumed: ResumedSession[] = [];
  for (const record of records) {
    const lastEventId = cursors.get(record.lastConnectionId);
    const prepared = { record, lastEventId, waiting: waiting.get(record.id) ?? [] };
    const session = await resumeStored(parts, record.id, call, prepared);
    if (session) resumed.push(session);
  }
  return resumed;
}
