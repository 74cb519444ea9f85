import { Observable, filter, type Observer, type Subscriber } from "rxjs";
import { EVERY_KEY, KeyedFanOut } from "../../internal/keyed-fan-out.js";
import { AgentError, CallAbortedError, StoreError, UnsupportedFeatureError } from "../errors.js";
import type { SandboxConnection } from "../connection/connection.js";
import type { CallOptions, Logger } from "../call-options.js";
import type { ClientSettings } from "../client-options.js";
import type { SandboxEvent } from "../events/events.js";
import type { ConnectionLifecycle } from "../connection/lifecycle.js";
import { SessionClaims } from "../persistence/claims.js";
import type { SessionRecording } from "./session-recording.js";
import type { HistoryEvent, HistoryOptions } from "../persistence/history.js";
import type { ClaimOptions, LeaseLost } from "../persistence/lease-keeper.js";
import { bounded, fromStore, restoreStored, resumeStored, type ResumeParts, type ResumedSession } from "./resume.js";
import { modelsFromOptions, type SessionSettings } from "./session-config.js";
import type { SessionMetadata } from "../metadata.js";
import * as calls from "./session-calls.js";
import type { ModelList, NewSessionOptions, PromptBlock, PromptInput, PromptOutcome } from "./session-calls.js";
import type { SessionPlace } from "./session-calls.js";
import type { SessionHandle, SessionList, TerminateResult } from "./session-calls.js";
import { mergeToTranscript, usageOf, type DirectSource } from "../transcript/index.js";
import type { Transcript, TranscriptSource } from "../transcript/index.js";
import type { PromptEvent, SessionView } from "../types.js";

/**
 * The client's sessions: every session method, the prompt path, resume and leases, and the
 * per-session views. Every way of opening a session records it (the session record, then its
 * events) and tells the settings what the agent answered with; a prompt carries a resumed
 * session's pending replay; the views run on local ids. Every call enters through
 * `lifecycle.with`, the call's one boundary; the calls on the wire are `session-calls.ts`.
 */
export class Sessions implements ResumeParts {
  readonly lifecycle: ConnectionLifecycle;
  readonly recording: SessionRecording;
  readonly settings: SessionSettings;
  readonly cwd: string;
  readonly logger: Logger | undefined;
  readonly #claims: SessionClaims;
  /** The client's events by session: a view costs an update nothing unless the update is its session's. */
  readonly #bySession: KeyedFanOut<SandboxEvent>;

  constructor(
    options: ClientSettings,
    lifecycle: ConnectionLifecycle,
    recording: SessionRecording,
    settings: SessionSettings,
  ) {
    this.lifecycle = lifecycle;
    this.recording = recording;
    this.settings = settings;
    this.cwd = options.cwd;
    this.logger = options.logger;
    this.#bySession = new KeyedFanOut(lifecycle.events$, sessionKey);
    this.#claims = new SessionClaims(recording.store, recording.storeErrors$, (lost) => this.#leaseLost(lost));
  }

  /** Sessions this client stopped driving because their lease is gone (see `restoreClaimed`). */
  get leaseLost$(): Observable<LeaseLost> {
    return this.#claims.lost$;
  }

  newSession(options: NewSessionOptions, call?: CallOptions): Promise<SessionHandle> {
    return this.lifecycle.with("newSession", call, async (conn, bounds) =>
      this.#opened(conn, await calls.newSession(conn, options, this.cwd, bounds), options),
    );
  }

  /** `session/load`; the history the agent replays while it runs is recorded (see `SessionRecording.loading`). */
  loadSession(sessionId: string, options: NewSessionOptions, call?: CallOptions): Promise<SessionHandle> {
    const { recording } = this;
    // A session recorded here already: the agent's replay is what the store holds (as on a resume),
    // so it is muted; any other session's replay is recorded.
    const recorded = recording.record(recording.localId(sessionId)) !== undefined;
    return this.lifecycle.with("loadSession", call, async (conn, bounds) => {
      if (recorded) recording.mute(sessionId, true);
      const undo = recorded ? undefined : recording.loading(conn, sessionId);
      let handle: SessionHandle;
      try {
        handle = await calls.loadSession(conn, sessionId, options, this.cwd, bounds);
      } catch (error) {
        undo?.();
        throw error;
      } finally {
        if (recorded) recording.mute(sessionId, false);
      }
      return this.#opened(conn, handle, options);
    });
  }

  /** `session/fork` of a session (a local id or the agent's): the fork is recorded with a link to it. */
  forkSession(parentId: string, place: SessionPlace, call?: CallOptions): Promise<{ sessionId: string }> {
    const { recording } = this;
    return this.lifecycle.with("forkSession", call, async (conn, bounds) => {
      const handle = await calls.forkSession(conn, recording.agentId(parentId), place, bounds);
      this.#configured(recording.forked(conn, handle, parentId, place));
      return { sessionId: handle.sessionId };
    });
  }

  /**
   * A session the store has a record of (local id) comes back as `resumeStored` says; any other id
   * is the agent's `session/resume`, resolving undefined (the session is recorded from then on).
   */
  resumeSession(sessionId: string, place: SessionPlace, call?: CallOptions): Promise<ResumedSession | undefined> {
    return bounded("resumeSession", call, async (within) => {
      const stored = await resumeStored(this, sessionId, within, undefined, place.additionalDirectories);
      if (stored) return stored;
      const { cwd, additionalDirectories } = place;
      await this.lifecycle.with("resumeSession", within, async (conn, bounds) =>
        this.#opened(conn, await calls.resumeSession(conn, sessionId, place, bounds), {
          cwd,
          ...(additionalDirectories ? { additionalDirectories } : {}),
        }),
      );
      return undefined;
    });
  }

  /**
   * `session/delete` of a session (a local id or the agent's). The store keeps its record and events,
   * the record ended, so `restoreSessions` and claims no longer bring it back; a store that cannot
   * write that reports on `storeErrors$` (the agent's delete has happened either way).
   */
  async deleteSession(sessionId: string, call?: CallOptions): Promise<void> {
    const { recording } = this;
    const id = recording.agentId(sessionId);
    await this.lifecycle.with("deleteSession", call, (conn, bounds) => calls.deleteSession(conn, id, bounds));
    await recording.end(recording.localId(sessionId), "deleteSession").catch((error: unknown) => {
      recording.report(error, "deleteSession");
    });
  }

  logout(call?: CallOptions): Promise<void> {
    return this.lifecycle.with("logout", call, (conn, bounds) => calls.logout(conn, bounds));
  }

  restoreStored(call?: CallOptions): Promise<ResumedSession[]> {
    return bounded("restoreSessions", call, (within) => restoreStored(this, within));
  }

  /**
   * Claims up to `options.max` open stored sessions nobody drives (leases, see `LeaseKeeper`) and
   * resumes them; the leases are renewed until released or lost. A resume that fails gives the
   * claims of this call back.
   */
  restoreClaimed(options: ClaimOptions, call?: CallOptions): Promise<ResumedSession[]> {
    return bounded("restoreSessions", call, async (within) => {
      const keeper = this.#claims.keeper(options);
      const giveBack = (leases: readonly { sessionId: string }[]) =>
        Promise.allSettled(leases.map((lease) => keeper.release(lease.sessionId)));
      const claiming = keeper.claim(options.max);
      const leases = await fromStore("restoreSessions", undefined, () => claiming, within.signal).catch((error) => {
        // A claim the deadline stopped waiting for may still succeed: its leases go back when it does.
        if (within.signal?.aborted) void claiming.then(giveBack, () => undefined);
        throw error;
      });
      if (leases.length === 0) return [];
      try {
        const resumed = await restoreStored(this, within, leases.map((lease) => lease.sessionId));
        const keep = () => this.#claims.keepResumed(leases, resumed);
        return await fromStore("restoreSessions", undefined, keep, within.signal);
      } catch (error) {
        // Past the deadline the store may be what stopped answering: the leases go back without a wait.
        if (within.signal?.aborted) void giveBack(leases);
        else await giveBack(leases);
        throw error;
      }
    });
  }

  /** Gives up the lease of a claimed session (another worker may claim it at once). */
  async releaseSession(localId: string): Promise<void> {
    const { recording } = this;
    if (!this.#claims.active) return;
    // Its last events first: once released, a write of this worker's would be refused.
    await recording.flush();
    await this.#claims.release(recording.localId(localId));
  }

  /**
   * Records a session as finished, then gives up its lease if it was claimed. Its events written so
   * far land first, and a session whose lease is already gone is refused (another worker drives it).
   */
  async end(id: string): Promise<void> {
    const { recording } = this;
    const localId = recording.localId(id);
    this.#claims.check(localId);
    if (!(await recording.end(localId, "endSession"))) {
      throw new StoreError(`endSession: the store has no session "${localId}"`, { sessionId: localId });
    }
    await recording.flush();
    await this.#claims.release(localId);
  }

  async releaseLeases(): Promise<void> {
    if (!this.#claims.active) return;
    // A store gone quiet holds a disconnect no longer than the leases last by themselves.
    await this.#claims.whileHeld(async () => {
      await this.recording.flush();
      await this.#claims.releaseAll();
    });
  }

  /** A turn; what the user sent and how the turn ended become transcript notes (see `SessionRecording.note`). */
  prompt(sessionId: string, input: PromptInput, call?: CallOptions): Promise<PromptOutcome> {
    const { recording, logger } = this;
    try {
      // A claimed session is driven only while its lease is held.
      this.#claims.check(recording.localId(sessionId));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.lifecycle.with("prompt", call, async (conn, bounds) => {
      const agentId = recording.agentId(sessionId);
      recording.note({ kind: "prompt-sent", sessionId: agentId, prompt: calls.toPromptBlocks(input) });
      try {
        const outcome = await this.#withReplay(conn, sessionId, input, (id, blocks) =>
          calls.prompt(conn, id, blocks, bounds, logger),
        );
        const usage = usageOf(outcome.raw.usage);
        const { stopReason } = outcome;
        recording.note({ kind: "turn-ended", sessionId: agentId, stopReason, ...(usage ? { usage } : {}) });
        return outcome;
      } catch (error) {
        // Given up from here (the signal): the turn was cancelled on the server as well.
        if (error instanceof CallAbortedError) {
          recording.note({ kind: "turn-ended", sessionId: agentId, stopReason: "cancelled" });
        } else {
          const code = error instanceof AgentError ? { code: error.code } : {};
          recording.note({ kind: "turn-failed", sessionId: agentId, message: (error as Error).message, ...code });
        }
        throw error;
      }
    });
  }

  /**
   * A prompt on a recorded session: the user's blocks are recorded, and a pending replay goes first.
   * `send` gets the agent's session id and the blocks. A prompt that fails or ends `cancelled` gives
   * the replay back, so the next prompt carries it: the agent has not taken it in.
   */
  async #withReplay(
    conn: SandboxConnection,
    id: string,
    input: PromptInput,
    send: (sessionId: string, blocks: PromptBlock[]) => Promise<PromptOutcome>,
  ): Promise<PromptOutcome> {
    const { recording } = this;
    const sessionId = recording.agentId(id);
    const blocks = calls.toPromptBlocks(input);
    recording.outbound(conn, sessionId, blocks);
    const replay = recording.takeReplay(sessionId);
    if (!replay) return send(sessionId, blocks);
    let outcome: PromptOutcome;
    try {
      outcome = await send(sessionId, [{ type: "text", text: replay.text }, ...blocks]);
    } catch (error) {
      recording.returnReplay(sessionId, replay);
      throw error;
    }
    if (outcome.stopReason === "cancelled") recording.returnReplay(sessionId, replay);
    return outcome;
  }

  cancel(sessionId: string): Promise<void> {
    const id = this.recording.agentId(sessionId);
    return this.lifecycle.with("cancel", undefined, (conn) => conn.notify("session/cancel", { sessionId: id }));
  }

  /** The agent's sessions (`session/list`), a page at a time. */
  list(params: { cwd?: string; cursor?: string }, call?: CallOptions): Promise<SessionList> {
    return this.lifecycle.with("listSessions", call, (c, b) => calls.listSessions(c, params, b));
  }

  async listModels(sessionId: string | undefined, call?: CallOptions): Promise<ModelList> {
    try {
      return await this.lifecycle.with("listModels", call, (c, b) => calls.listModels(c, sessionId, b));
    } catch (error) {
      // No list_models on this server for this agent: a session's own `model` option lists them.
      if (!(error instanceof UnsupportedFeatureError) || sessionId === undefined) throw error;
      const options = await this.settings.configOptions(this.recording.agentId(sessionId), call);
      const models = modelsFromOptions(options);
      if (!models) throw error;
      return models;
    }
  }

  setMetadata(sessionId: string, metadata: SessionMetadata, call?: CallOptions): Promise<void> {
    return this.lifecycle.with("setMetadata", call, (c, b) => calls.setMetadata(c, sessionId, metadata, b));
  }

  detach(sessionId: string, call?: CallOptions): Promise<void> {
    return this.lifecycle.with("detachSession", call, (c, b) => calls.detachSession(c, sessionId, b));
  }

  terminate(sessionId: string, call?: CallOptions): Promise<TerminateResult> {
    return this.lifecycle.with("terminateSession", call, (c, b) => calls.terminateSession(c, sessionId, b));
  }

  /**
   * The turn as an observable: the session's events while it runs, then `stop`, then completion.
   * Unsubscribing before the end aborts the call, which cancels the turn. `sessionId` is a local or
   * the agent's id.
   */
  prompt$(sessionId: string, input: PromptInput): Observable<PromptEvent> {
    return this.#turn$(this.recording.agentId(sessionId), input);
  }

  /** `prompt$` on the agent's session id. */
  #turn$(agentId: string, input: PromptInput): Observable<PromptEvent> {
    return new Observable<PromptEvent>((subscriber) => {
      const controller = new AbortController();
      const updates = this.#bySession.of(agentId).subscribe(subscriber);
      this.prompt(agentId, input, { signal: controller.signal }).then(
        (outcome) => {
          subscriber.next({ kind: "stop", stopReason: outcome.stopReason });
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        updates.unsubscribe();
        // After the outcome this does nothing; before it, prompt() sends the cancel.
        controller.abort();
      };
    });
  }

  /**
   * One session's view. Its `events$` ends with the session or with the connection it was
   * subscribed on (subscribed while disconnected: the next connection), so nothing stays
   * subscribed to the client across reconnects.
   */
  view(id: string): SessionView {
    const sessionId = this.recording.agentId(id);
    return {
      sessionId,
      events$: this.#events$(sessionId),
      prompt: (input, options) => this.prompt(sessionId, input, options),
      prompt$: (input) => this.#turn$(sessionId, input),
      cancel: () => this.cancel(sessionId),
      history$: (options) => this.history$(id, options),
      transcript$: this.transcript$(id),
    };
  }

  /**
   * A view's `events$`: `of(sessionId).pipe(takeWhile(not ended, inclusive), takeUntil(ended))` with
   * the route handing each event to one object before the subscriber, where the operators put their
   * subscriber and its closures (a view is kept per session, see scenario 13).
   */
  #events$(sessionId: string): Observable<SandboxEvent> {
    return new Observable<SandboxEvent>((subscriber) => {
      const ended = this.lifecycle.ended.subscribe(() => subscriber.complete());
      if (subscriber.closed) return ended;
      const view = new ViewEvents(subscriber);
      const unroute = this.#bySession.add(sessionId, view);
      return () => {
        view.close();
        unroute();
        ended.unsubscribe();
      };
    });
  }

  history$(id: string, options?: HistoryOptions): Observable<HistoryEvent> {
    return this.recording.history$(id, options);
  }

  /** The session's transcript snapshots: stored history, then live events and the client's notes. */
  transcript$(id: string): Observable<Transcript> {
    const { recording } = this;
    // A recorded session's events and notes all come through its history (stored, then live, in
    // order); the live stream adds what is never stored (gaps, the end the client infers when the
    // agent exits) and everything of a session the store does not record.
    // By the agent's id as it is now: routed again whenever the local id's mapping changes.
    // (A direct source, no chain of operators or subscribers: a view is kept per session, and each
    // object between an update and the builder is memory the update reaches again, see scenario 13.)
    const live: DirectSource = (observer) => {
      let routed: LiveEvents | undefined;
      const route = () => {
        const now = recording.agentId(id);
        if (now === routed?.agentId) return;
        routed?.close();
        routed = new LiveEvents(now, recording, observer, this.#bySession);
      };
      const remaps = recording.remapped$.subscribe(route);
      route();
      return () => {
        remaps.unsubscribe();
        routed?.close();
      };
    };
    const notes = recording.notes$.pipe(filter((note) => note.sessionId === recording.agentId(id)));
    const stored = recording.history$(id, undefined, "transcript$");
    return mergeToTranscript([stored, live, notes]);
  }

  /** A lease gone: stop recording the session and cancel its turn (best effort), before `leaseLost$` says so. */
  #leaseLost(lost: LeaseLost): void {
    const { recording, lifecycle } = this;
    const agentSessionId = recording.record(lost.sessionId)?.agentSessionId;
    recording.forget(lost.sessionId);
    if (agentSessionId === undefined || !lifecycle.connected) return;
    lifecycle
      .with("cancel", { timeoutMs: 5000 }, (conn) => conn.notify("session/cancel", { sessionId: agentSessionId }))
      .catch(() => undefined);
  }

  #opened(conn: SandboxConnection, handle: SessionHandle, options: NewSessionOptions): SessionHandle {
    return this.#configured(this.recording.opened(conn, handle, options, this.cwd));
  }

  #configured(handle: SessionHandle): SessionHandle {
    this.settings.record(handle.sessionId, handle.raw);
    return handle;
  }
}

/** A view's events, up to and with its session's `session-ended`; nothing after its close. */
class ViewEvents implements Observer<SandboxEvent> {
  readonly #subscriber: Subscriber<SandboxEvent>;
  #open = true;

  constructor(subscriber: Subscriber<SandboxEvent>) {
    this.#subscriber = subscriber;
  }

  next(event: SandboxEvent): void {
    if (!this.#open) return;
    this.#subscriber.next(event);
    if (event.kind === "session-ended") this.#subscriber.complete();
  }

  error(error: unknown): void {
    if (this.#open) this.#subscriber.error(error);
  }

  complete(): void {
    if (this.#open) this.#subscriber.complete();
  }

  close(): void {
    this.#open = false;
  }
}

/**
 * A transcript's live events of one agent session: those its stored history does not bring (gaps, the
 * end the client infers when the agent exits, and every event of a session the store does not record),
 * routed straight to the transcript's builder. Closed when the session's id changes or the transcript
 * ends; a delivery under way when it closes reaches the builder no more.
 */
class LiveEvents implements Observer<SandboxEvent> {
  readonly agentId: string;
  readonly #recording: SessionRecording;
  readonly #target: Observer<TranscriptSource>;
  #open = true;
  readonly #unroute: () => void;

  constructor(
    agentId: string,
    recording: SessionRecording,
    target: Observer<TranscriptSource>,
    bySession: KeyedFanOut<SandboxEvent>,
  ) {
    this.agentId = agentId;
    this.#recording = recording;
    this.#target = target;
    this.#unroute = bySession.add(agentId, this);
  }

  next(event: SandboxEvent): void {
    if (!this.#open) return;
    if (event.kind === "events-lost" || event.kind === "session-ended" || !this.#recording.tracks(this.agentId)) {
      this.#target.next(event);
    }
  }

  error(error: unknown): void {
    if (this.#open) this.#target.error(error);
  }

  /** The events stream ending does not end the transcript (its history and notes go on). */
  complete(): void {}

  close(): void {
    this.#open = false;
    this.#unroute();
  }
}

/** The session an event is routed to: its own, or every one for a gap of no stream in particular. */
function sessionKey(event: SandboxEvent): string | typeof EVERY_KEY | undefined {
  if (event.kind === "events-lost" && event.sessionId === undefined) return EVERY_KEY;
  return "sessionId" in event && typeof event.sessionId === "string" ? event.sessionId : undefined;
}
