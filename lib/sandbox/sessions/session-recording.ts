import { Subject, merge, tap, type Observable } from "rxjs";
import type { AcpEnvelope } from "../../acp-http/index.js";
import type { ConnectionTap, SandboxConnection } from "../connection/connection.js";
import type { NewSessionOptions, PromptBlock, SessionHandle, SessionPlace } from "./session-calls.js";
import { REPLAY_FROM_START, resumesSessions } from "./session-calls.js";
import { StoreError } from "../errors.js";
import { history$, type HistoryEvent, type HistoryOptions } from "../persistence/history.js";
import { eventIdentity } from "../persistence/identity.js";
import { createRecorder, type Recorder } from "../persistence/recorder.js";
import type { ReplayOptions, ReplayText } from "../persistence/replay.js";
import {
  inputAnswerPayload,
  MessageStamps,
  permissionAnswerPayload,
  usageOf,
  type TranscriptNote,
} from "../transcript/index.js";
import type { NewSessionEvent, SessionEvent, SessionRecord } from "../persistence/schemas.js";
import type { SessionStore } from "../persistence/store.js";

const ENDED = new Set(["_sandboxagent/session/ended"]);

/** The key events of a connection are stored under: the server id on v1 (stable across reattach), else the id. */
export function connectionKey(conn: SandboxConnection): string {
  const { profile, serverId } = conn.settings;
  return profile.api === "v1" ? serverId : (conn.protocol.connectionId ?? serverId);
}

function sessionIdOf(envelope: AcpEnvelope): string | undefined {
  const params = (envelope as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return undefined;
  const record = params as { sessionId?: unknown; session_id?: unknown };
  const id = record.sessionId ?? record.session_id;
  return typeof id === "string" ? id : undefined;
}

/**
 * The client's side of persistence: one recorder over the store, the map from the agent's session
 * ids to the stable local ids, the session records, and the replay text waiting for a session's
 * next prompt. Store failures never escape: they arrive on `storeErrors$`.
 */
export class SessionRecording {
  readonly recorder: Recorder;
  readonly storeErrors$: Observable<StoreError>;
  readonly replay: ReplayOptions;
  readonly #recordErrors = new Subject<StoreError>();
  readonly #notes = new Subject<TranscriptNote>();
  /** The client's transcript notes about sessions the store does not record (recorded ones are in `history$`). */
  readonly notes$: Observable<TranscriptNote> = this.#notes.asObservable();
  readonly #remapped = new Subject<void>();
  /** A local id's agent session id may have changed (`agentId`): views routed by it look again. */
  readonly remapped$: Observable<void> = this.#remapped.asObservable();
  /** agent session id → local id. */
  readonly #local = new Map<string, string>();
  readonly #records = new Map<string, SessionRecord>();
  /** Event ids already stored, per agent session id, while a resumed stream may replay them. */
  readonly #seen = new Map<string, Set<string>>();
  /** Sessions whose inbound events are the agent's own replay of history (during `session/load`). */
  readonly #muted = new Set<string>();
  readonly #replays = new Map<string, ReplayText>();
  /**
   * Adopted sessions whose stored history ends inside a turn an earlier client started (a page
   * reloaded mid-turn): that turn's answer arrives on the reattached stream with a request id this
   * client never sent, and is stored as the turn's end (see `#answeredElsewhere`). Each maps to the
   * connection stream's cursor its stored history reached (when it has one).
   */
  readonly #midTurn = new Map<string, string | undefined>();
  /** Sessions with a prompt of this client's in flight: a turn's answer may be its own. */
  readonly #prompting = new Set<string>();
  /** Each recorded chunk's message, stamped on it: its id then never depends on what a store evicted. */
  readonly #stamps = new MessageStamps();
  #writes: Promise<void> = Promise.resolve();
  #connection: (() => SandboxConnection | undefined) | undefined;

  constructor(readonly store: SessionStore, replay: ReplayOptions = {}) {
    this.recorder = createRecorder(store);
    this.replay = replay;
    this.storeErrors$ = merge(this.recorder.storeErrors$, this.#recordErrors);
  }

  /** The local id for an agent session id (itself when the session is not known here). */
  localId(sessionId: string): string {
    return this.#local.get(sessionId) ?? sessionId;
  }

  /** The agent's session id on the live connection for a local id (itself when unknown). */
  agentId(id: string): string {
    return this.#records.get(id)?.agentSessionId ?? id;
  }

  record(localId: string): SessionRecord | undefined {
    return this.#records.get(localId);
  }

  tap(connection: () => SandboxConnection | undefined): ConnectionTap {
    this.#connection = connection;
    let frame: string | undefined;
    let stream = "connection";
    /** The session of the latest envelope that named one (the session a turn's answer most likely ends). */
    let latest: string | undefined;
    return {
      cursor: (advance) => {
        frame = advance.lastEventId;
        stream = advance.stream;
      },
      inbound: (envelope) => {
        const streamEventId = frame;
        frame = undefined;
        const conn = connection();
        const agentSessionId = sessionIdOf(envelope);
        if (agentSessionId === undefined) {
          if (this.#midTurn.size > 0) this.#answeredElsewhere(envelope, latest, stream, streamEventId);
          return true;
        }
        latest = agentSessionId;
        if (!conn || !this.#local.has(agentSessionId)) return true;
        if (this.#muted.has(agentSessionId)) return false;
        if (ENDED.has((envelope as { method?: string }).method ?? "")) this.ended(this.localId(agentSessionId));
        const key = connectionKey(conn);
        const id = streamEventId
          ? eventIdentity({ connectionId: key, sender: "agent", payload: envelope, streamEventId, stream })
          : `agent:${key}:${globalThis.crypto.randomUUID()}`;
        if (this.#seen.get(agentSessionId)?.has(id)) return false;
        this.#enqueue(agentSessionId, id, key, "agent", envelope);
        return true;
      },
    };
  }

  /** Whether this agent session's events are recorded (so they reach `history$`). */
  tracks(agentSessionId: string): boolean {
    return this.#local.has(agentSessionId);
  }

  /**
   * What the client knows of a session beyond the agent's events (a turn's end, a permission's answer,
   * a prompt of a session not recorded): stored with a recorded session's history, so a reopened
   * session shows it; for any other session emitted on `notes$`. A turn's end is stored as the prompt's
   * response (`result.stopReason`), which the replay text already reads as the end of a turn.
   */
  note(note: TranscriptNote): void {
    const agentSessionId = note.sessionId;
    if (note.kind === "prompt-sent") {
      this.#prompting.add(agentSessionId);
      this.#midTurn.delete(agentSessionId);
    } else if (note.kind === "turn-ended" || note.kind === "turn-failed") this.#prompting.delete(agentSessionId);
    const conn = this.#connection?.();
    if (!this.#local.has(agentSessionId) || !conn) {
      this.#notes.next(note);
      return;
    }
    const key = connectionKey(conn);
    const id = `note:${key}:${globalThis.crypto.randomUUID()}`;
    switch (note.kind) {
      case "prompt-sent":
        return; // recorded by `outbound`
      case "turn-ended": {
        const result = { stopReason: note.stopReason, ...(note.usage ? { usage: note.usage } : {}) };
        return this.#enqueue(agentSessionId, id, key, "agent", { jsonrpc: "2.0", result });
      }
      case "turn-failed": {
        const error = { message: note.message, ...(note.code !== undefined ? { code: note.code } : {}) };
        return this.#enqueue(agentSessionId, id, key, "agent", { jsonrpc: "2.0", error });
      }
      case "permission-answered":
        return this.#enqueue(agentSessionId, id, key, "client", permissionAnswerPayload(note));
      case "input-answered":
        return this.#enqueue(agentSessionId, id, key, "client", inputAnswerPayload(note));
    }
  }

  /**
   * A `session/load` about to be sent: the agent replays the session's history while it runs, and
   * that replay is recorded (a session this client never stored is mapped now, so the tap stores it),
   * after a stored note of the load, which tells a transcript that what follows is history, not a
   * turn. Returns what undoes the mapping when the load fails.
   */
  loading(conn: SandboxConnection, agentSessionId: string): () => void {
    const fresh = !this.#local.has(agentSessionId);
    if (fresh) this.#local.set(agentSessionId, agentSessionId);
    const key = connectionKey(conn);
    // The v2 draft's load is a resume with `replayFrom`, which the transcript reads as a load.
    const load = resumesSessions(conn)
      ? { method: "session/resume", params: { sessionId: agentSessionId, replayFrom: REPLAY_FROM_START } }
      : { method: "session/load", params: { sessionId: agentSessionId } };
    const payload = { jsonrpc: "2.0" as const, ...load };
    this.#enqueue(agentSessionId, `client:${key}:${globalThis.crypto.randomUUID()}`, key, "client", payload);
    return () => {
      if (fresh && !this.#records.has(agentSessionId)) this.#local.delete(agentSessionId);
    };
  }

  /** Records the user's prompt (not the replay text sent with it). */
  outbound(conn: SandboxConnection, agentSessionId: string, prompt: PromptBlock[]): void {
    if (!this.#local.has(agentSessionId)) return;
    const key = connectionKey(conn);
    const params = { sessionId: agentSessionId, prompt };
    const payload = { jsonrpc: "2.0" as const, method: "session/prompt", params };
    this.#enqueue(agentSessionId, `client:${key}:${globalThis.crypto.randomUUID()}`, key, "client", payload);
  }

  /**
   * The replay waiting for this session's next prompt, taken for one prompt: `returnReplay` puts it
   * back when that prompt fails, so it is sent until a prompt carrying it succeeds.
   */
  takeReplay(agentSessionId: string): ReplayText | undefined {
    const localId = this.localId(agentSessionId);
    const replay = this.#replays.get(localId);
    this.#replays.delete(localId);
    return replay;
  }

  /** A replay whose prompt failed or was cancelled, pending again (unless a newer resume set another). */
  returnReplay(agentSessionId: string, replay: ReplayText): void {
    const localId = this.localId(agentSessionId);
    if (!this.#replays.has(localId)) this.#replays.set(localId, replay);
  }

  setReplay(localId: string, replay: ReplayText | null): void {
    if (replay) this.#replays.set(localId, replay);
  }

  /** A session opened on `conn` (new, loaded or resumed): map it and write its record. */
  opened(conn: SandboxConnection, handle: SessionHandle, options: NewSessionOptions, cwd: string, localId?: string) {
    const id = localId ?? this.#local.get(handle.sessionId) ?? handle.sessionId;
    const directories = options.additionalDirectories ?? [];
    const init = {
      cwd: options.cwd ?? cwd,
      mcpServers: options.mcpServers ?? [],
      ...(directories.length > 0 ? { additionalDirectories: [...directories] } : {}),
    };
    const metadata = { ...handle.metadata, ...options.metadata };
    const previous = this.#records.get(id);
    this.#local.set(handle.sessionId, id);
    // A session opened again keeps its stored modes and options until the settings layer reports
    // the agent's (after re-applying the stored ones, see `configChanged`).
    const config = previous
      ? {}
      : {
        ...(handle.modes !== undefined ? { modes: handle.modes } : {}),
        ...(Array.isArray(handle.configOptions) ? { configOptions: handle.configOptions } : {}),
      };
    const record: SessionRecord = {
      ...previous,
      id,
      agent: conn.settings.agent,
      agentSessionId: handle.sessionId,
      lastConnectionId: connectionKey(conn),
      createdAt: previous?.createdAt ?? Date.now(),
      ...(Object.keys(metadata).length > 0 ? { metadata } : previous?.metadata ? { metadata: previous.metadata } : {}),
      sessionInit: previous?.sessionInit ?? init,
      ...config,
    };
    this.#records.set(id, record);
    this.#remapped.next();
    this.#write(record);
    return handle;
  }

  /**
   * A session opened by `session/fork`: recorded like a new one, with `metadata.forkedFrom` naming
   * the parent's local id. A fork answered with an id already recorded here (the v2 contract
   * server's mock agent answers with the parent's) is the same session on the wire: not recorded twice.
   */
  forked(conn: SandboxConnection, handle: SessionHandle, parentId: string, place: SessionPlace): SessionHandle {
    if (this.#local.has(handle.sessionId)) return handle;
    const forkedFrom = this.localId(parentId);
    const { cwd, additionalDirectories } = place;
    const directories = additionalDirectories ? { additionalDirectories } : {};
    return this.opened(conn, handle, { cwd, metadata: { forkedFrom }, ...directories }, cwd);
  }

  /** The agent's session's modes and options changed (or were re-applied): written to its record. */
  configChanged(agentSessionId: string, known: { modes?: unknown; configOptions?: unknown[] }): void {
    const record = this.#local.has(agentSessionId) ? this.#records.get(this.localId(agentSessionId)) : undefined;
    if (!record) return;
    const next = { ...record, ...known };
    const config = (r: SessionRecord) => JSON.stringify([r.modes, r.configOptions]);
    if (config(next) === config(record)) return;
    this.#records.set(record.id, next);
    this.#write(next);
  }

  /**
   * One stored event of a session about to be adopted, oldest first: a message its stored history
   * ends inside goes on under the stamp it was recorded with (see `MessageStamps`).
   */
  readStored(agentSessionId: string, event: SessionEvent): void {
    this.#stamps.followStored(agentSessionId, event);
  }

  /**
   * Maps a stored session before its connection replays (so the replayed events are recognised);
   * `midTurn`: its stored history ends inside a turn an earlier client started; `cursor`: the
   * connection stream's cursor that history reached (a turn's answer comes after it).
   */
  adopt(record: SessionRecord, seenIds: Set<string>, midTurn = false, cursor?: string): void {
    this.#records.set(record.id, record);
    this.#local.set(record.agentSessionId, record.id);
    this.#seen.set(record.agentSessionId, seenIds);
    if (midTurn) this.#midTurn.set(record.agentSessionId, cursor);
    else this.#midTurn.delete(record.agentSessionId);
    this.#remapped.next();
  }

  /**
   * The turn an earlier client started will not end here: the session came back on a new connection
   * (`loaded`, `replayed`), where that turn's answer never comes. Recorded as the turn's failure, so
   * no transcript waits on it.
   */
  turnLost(agentSessionId: string, how: string): void {
    if (!this.#midTurn.delete(agentSessionId)) return;
    const message = `the turn in progress was lost: the session was ${how} on a new connection`;
    this.note({ kind: "turn-failed", sessionId: agentSessionId, message });
  }

  /**
   * Stops recording a session here (its lease went to another worker): its events still reach
   * subscribers, but nothing of it is written any more, nor replayed into a prompt.
   */
  forget(localId: string): void {
    const record = this.#records.get(localId);
    if (!record) return;
    this.#records.delete(localId);
    this.#replays.delete(localId);
    this.#midTurn.delete(record.agentSessionId);
    if (this.#local.get(record.agentSessionId) === localId) {
      this.#local.delete(record.agentSessionId);
      this.#seen.delete(record.agentSessionId);
      this.#muted.delete(record.agentSessionId);
      this.#stamps.forget(record.agentSessionId);
    }
    this.#remapped.next();
  }

  /**
   * A response that names no session: when it ends a turn (`result.stopReason`) and no prompt of
   * this client is in flight, it answers the prompt an earlier client sent on this connection (a page
   * reloaded mid-turn), so it is stored as that session's turn end. Which session: the one mid-turn,
   * or of several, the one whose update came last before it (an agent writes a turn's answer after
   * its updates). A session whose stored history already reached the answer's place on the stream is
   * not it: the earlier client saw that answer and it was another session's (the server sends each
   * response on the stream too, and a reattach replays from the earliest cursor of its sessions).
   */
  #answeredElsewhere(envelope: AcpEnvelope, latest: string | undefined, stream: string, at?: string): void {
    const { result } = envelope as { method?: unknown; result?: unknown };
    if ("method" in envelope || typeof result !== "object" || result === null) return;
    const { stopReason, usage } = result as { stopReason?: unknown; usage?: unknown };
    if (typeof stopReason !== "string" || this.#prompting.size > 0) return;
    const open = [...this.#midTurn].filter(([, reached]) => !(stream === "connection" && before(at, reached)));
    const ids = open.map(([id]) => id);
    const agentSessionId = latest !== undefined && ids.includes(latest)
      ? latest
      : ids.length === 1 ? ids[0] : undefined;
    if (agentSessionId === undefined) return;
    this.#midTurn.delete(agentSessionId);
    const reported = usageOf(usage);
    this.note({ kind: "turn-ended", sessionId: agentSessionId, stopReason, ...(reported ? { usage: reported } : {}) });
  }

  /** Stops dropping replayed ids for a session once its resumed stream has caught up (memory). */
  caughtUp(agentSessionId: string): void {
    this.#seen.delete(agentSessionId);
  }

  mute(agentSessionId: string, on: boolean): void {
    if (on) this.#muted.add(agentSessionId);
    else this.#muted.delete(agentSessionId);
  }

  /**
   * A session's history; a store that fails errors it with a `StoreError` naming `call` (the user's
   * call), also reported on `storeErrors$` (a view that only renders may have nobody reading its error).
   */
  history$(id: string, options?: HistoryOptions, call = "history$"): Observable<HistoryEvent> {
    return history$(this.recorder, this.#records.has(id) ? id : this.localId(id), options, call).pipe(
      tap({ error: (error: unknown) => this.report(error, `${call}: could not read session ${id}`) }),
    );
  }

  /** Waits for every queued event and record write. */
  async flush(): Promise<void> {
    await this.recorder.flush();
    await this.#writes;
  }

  /** A failure outside the recorder (a record write, a replay read), reported like a write error. */
  report(error: unknown, what: string): void {
    this.#recordErrors.next(error instanceof StoreError ? error : new StoreError(`store: ${what}`, { cause: error }));
  }

  #enqueue(agentSessionId: string, id: string, connectionId: string, sender: "agent" | "client", payload: unknown) {
    const event: NewSessionEvent = {
      id,
      sessionId: this.localId(agentSessionId),
      createdAt: Date.now(),
      connectionId,
      sender,
      payload: this.#stamps.stamp(agentSessionId, id, sender, payload) as NewSessionEvent["payload"],
    };
    this.recorder.enqueue(event);
  }

  /**
   * Records a session as ended and waits for the write, reading its record from the store when this
   * client has none; false when the store has no such session. `call` names the user's call in errors.
   */
  async end(localId: string, call: string): Promise<boolean> {
    const known = this.#records.get(localId);
    let record = known;
    if (!record) {
      try {
        record = await this.store.getSession(localId);
      } catch (error) {
        throw StoreError.during(call, error, localId);
      }
      if (!record) return false;
    }
    if (record.endedAt !== undefined) return true;
    const ended = { ...record, endedAt: Date.now() };
    if (known) this.#records.set(localId, ended);
    // After the writes queued before it, and awaited: the caller gives the lease up only once it landed.
    const write = this.#writes.then(() => this.store.updateSession(ended));
    this.#writes = write.catch(() => undefined);
    try {
      await write;
    } catch (error) {
      if (known && this.#records.get(localId) === ended) this.#records.set(localId, known);
      throw StoreError.during(call, error, localId);
    }
    return true;
  }

  /** Records the session as ended (the server said so, or `endSession`): stores and claims skip it from now on. */
  ended(localId: string): void {
    const record = this.#records.get(localId);
    if (!record || record.endedAt !== undefined) return;
    const ended = { ...record, endedAt: Date.now() };
    this.#records.set(record.id, ended);
    this.#write(ended);
  }

  /** Record writes go one after another (a later one never lands first) and never throw. */
  #write(record: SessionRecord): void {
    this.#writes = this.#writes.then(async () => {
      try {
        await this.store.updateSession(record);
      } catch (error) {
        this.report(error, `could not write session ${record.id}`);
      }
    });
  }
}

/** Whether stream cursor `at` is at or before `reached` (only numeric cursors compare). */
function before(at: string | undefined, reached: string | undefined): boolean {
  const numeric = (cursor: string | undefined): cursor is string => cursor !== undefined && /^\d+$/.test(cursor);
  return numeric(at) && numeric(reached) && Number(at) <= Number(reached);
}
