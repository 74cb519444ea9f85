// The public client: typed ACP methods over the connection, the observables users read, and calls
// as cold observables. A call's `{ signal, timeoutMs }` travels down unchanged and becomes one
// deadline signal with one timer where the call is registered (RpcCorrelator.register, call-correlation.ts).
import * as v from "valibot";
import { type Observable as Obs, Observable } from "rxjs";
import {
  ForkSessionResultSchema,
  ListSessionsResultSchema,
  LooseResultSchema,
  NewSessionResultSchema,
  PromptResultSchema,
  type AuthenticateParams,
  type CancelParams,
  type CloseSessionParams,
  type ForkSessionResult,
  type InitializeParams,
  type InitializeResult,
  type ListSessionsParams,
  type ListSessionsResult,
  type LoadSessionParams,
  type LooseResult,
  type NewSessionParams,
  type NewSessionResult,
  type PromptParams,
  type PromptResult,
  type ResumeSessionParams,
  type SessionIdParams,
  type SetSessionConfigOptionParams,
  type SetSessionModelParams,
  type SetSessionModeParams,
  type SetSessionTitleParams,
  type AgentCapabilities,
} from "./acp-types.js";
import {
  resolveClientOptions,
  type AcpHttpClientOptions,
  type CloseInfo,
  type RequestOptions,
  type ResolvedClientOptions,
} from "./client-options.js";
import { Connection } from "./connection.js";
import type { AcpEnvelope, AcpRequest } from "./envelope.js";
import {
  AcpAbortError,
  AcpHttpError,
  AcpProtocolError,
  AcpProtocolVersionError,
  AcpRpcError,
  AcpTimeoutError,
  AcpUnsupportedError,
} from "./errors.js";
import { UNREPORTED_STOP_REASON, V2PromptAckSchema } from "./acp-types.js";
import { negotiatedProfile, PROTOCOL_PROFILES, type AcpProtocolVersion } from "./protocol-versions.js";
import type { EventGap } from "./event-stream.js";
import type { PendingOptions } from "./call-correlation.js";
import type { AcpParseError } from "./response-order.js";
import type { AcpReconnectAttempt } from "../internal/backoff.js";
import { type AcpRecovery, attachSession, type AttachSessionOptions } from "./recovery.js";
import type { AcpConnectionState } from "./connection.js";
import { deadlineSignal, linkSignal, untilAborted } from "../internal/abort.js";
export { RFD_PROFILE, type AcpHttpClientOptions, type CloseInfo, type RequestOptions } from "./client-options.js";

/**
 * An ACP client over streamable HTTP: POST sends envelopes, a GET event stream brings
 * them back, DELETE closes. Every inbound envelope is on the hot `envelopes$`, once,
 * in order; requests are settled from it by id. One instance is one connection: after
 * `disconnect()`, a failed first `initialize` or a fatal failure it stays closed and
 * every call fails fast with `AcpConnectionClosedError`.
 */
export class AcpHttpClient {
  /** Every validated inbound envelope, hot, no replay; completes when the connection closes. */
  readonly envelopes$: Obs<AcpEnvelope>;
  /** Resolves once, when the connection has closed, with why. Never rejects. */
  readonly closed: Promise<CloseInfo>;

  readonly #options: ResolvedClientOptions;
  readonly #connection: Connection;
  #initialized = false;
  #agentCapabilities: AgentCapabilities | undefined;
  #v2AgentCapabilities: InitializeResult["capabilities"];

  constructor(options: AcpHttpClientOptions) {
    this.#options = resolveClientOptions(options);
    const connection = (this.#connection = new Connection(this.#options));
    connection.speak(this.#options.profile);
    this.envelopes$ = connection.inbound.envelopes.asObservable();
    this.closed = connection.closed;
  }

  // The streams below are made when first read: a connection nobody watches them on keeps none.

  /** Frames and bodies that were not JSON-RPC; the stream goes on after each. */
  get parseErrors$(): Obs<AcpParseError> {
    return this.#connection.inbound.parseErrors.observable;
  }

  /** Events the server could no longer replay after a drop (detected by id gaps). */
  get gaps$(): Obs<EventGap> {
    return this.#connection.gaps.observable;
  }

  /** `idle | connecting | open | reconnecting | closed`, replaying the current value. */
  get state$(): Obs<AcpConnectionState> {
    return this.#connection.state.state$;
  }

  /** Each time a lost connection was rebuilt (option `recover`): which sessions came back. Hot. */
  get recoveries$(): Obs<AcpRecovery> {
    return this.#connection.recoveries.observable;
  }

  /**
   * Each reconnect attempt while `state$` says `reconnecting`: `{ attempt, maxAttempts, nextDelayMs,
   * cause, kind }`, per the `reconnect` policy. Hot; completes when the connection closes.
   */
  get reconnecting$(): Obs<AcpReconnectAttempt> {
    return this.#connection.reconnects.observable;
  }

  get state(): AcpConnectionState {
    return this.#connection.state.value;
  }

  /** Why the connection closed, once it has (the value `closed` resolves with). */
  get closeInfo(): CloseInfo | undefined {
    return this.#connection.closeInfo;
  }

  /** The server's id for this connection (over WebSocket, from the 101 where the constructor shows it). */
  get connectionId(): string | undefined {
    return this.#connection.connectionId;
  }

  /** The connection stream's cursor: persist it to resume after a reload (still readable after close). */
  get lastEventId(): string | undefined {
    return this.#connection.streams.lastEventId;
  }

  /**
   * What the agent said it can do, from the last successful `initialize` (undefined before, and on a
   * v2 connection: see `v2AgentCapabilities`). The unstable methods below are sent only when it lists
   * them under `sessionCapabilities`.
   */
  get agentCapabilities(): AgentCapabilities | undefined {
    return this.#agentCapabilities;
  }

  /**
   * What a v2 agent said it can do (its `initialize` answer's `capabilities`, ACP v2 draft), from the
   * last successful `initialize`; undefined before and on v1. Each capability is an object when on
   * (`session.prompt.image`, `session.mcp.http`, `session.delete`, ...), absent when off.
   */
  get v2AgentCapabilities(): InitializeResult["capabilities"] {
    return this.#v2AgentCapabilities;
  }

  /**
   * The ACP version spoken: the one asked for (option `protocolVersion`, default 1) until `initialize`
   * is answered, then the one the agent answered. 2 is the v2 draft (experimental).
   */
  get protocolVersion(): AcpProtocolVersion {
    return this.#connection.profile.version;
  }

  /** Sends a request and resolves with its `result`; a JSON-RPC error rejects with `AcpRpcError`. */
  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.#connection.request(method, params, options);
  }

  /** The cold twin of `request`: sends on subscribe, emits the result once; unsubscribing aborts it. */
  request$(method: string, params?: unknown, options: RequestOptions = {}): Obs<unknown> {
    return coldRequest((linked) => this.request(method, params, linked), options);
  }

  /**
   * Reattach (RFD; option `connectionId`): resumes a session's stream from its stored `onCursor` cursor, no
   * `session/load`; the server replays what was missed, once. Failures and fallback: see `AttachSessionOptions`.
   */
  attachSession(sessionId: string, options: AttachSessionOptions = {}): Promise<void> {
    return attachSession(this.#connection, sessionId, options);
  }

  /**
   * Takes over an agent request that reached this connection before this client existed (a page
   * reloaded, a process restarted, then reattached to the same connection) and was never answered:
   * the handlers get it as if it arrived now, so their answer, or `cancelled` when its turn is
   * cancelled, goes out under its id. The server forwards an answer to the agent whichever client
   * sends it. A request is taken once: one whose id this client already received (on a replayed
   * stream, say) or adopted is ignored, answered or not. One the stream will still bring back (its
   * event is after the cursor the stream resumes from) is the stream's to deliver: do not adopt it,
   * or a copy arriving after its answer would count as a new request. Anything without a method and
   * a string or number id is ignored (it may come from storage).
   */
  adoptAgentRequest(request: AcpRequest): void {
    const { id, method } = request as { id?: unknown; method?: unknown };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) return;
    this.#connection.adoptAgentRequest(request);
  }

  /**
   * Sends a notification; resolves once the server accepted it. `session/cancel` also
   * aborts the handlers still deciding that session's agent requests.
   */
  notify(method: string, params?: unknown): Promise<void> {
    return this.#connection.notify(method, params);
  }

  // --- ACP methods ---------------------------------------------------------------

  /**
   * Opens the connection. The event stream opens once the answer is read (and, in the RFD
   * profile, the connection id known). If this first `initialize` fails, the connection
   * closes (`initialize-failed`, or `unauthorized` on a 401) and the error is rethrown.
   */
  async initialize(params: Partial<InitializeParams> = {}, options?: RequestOptions): Promise<InitializeResult> {
    const asked = this.#connection.profile;
    try {
      const full = this.#initializeParams(params);
      const answer = await this.#connection.request("initialize", full, options ?? {}, true);
      // The agent's answer decides the version (and so how the rest of it reads); one this client
      // cannot speak ends the connection.
      const answered = (answer as { protocolVersion?: unknown } | null | undefined)?.protocolVersion;
      const spoken = negotiatedProfile(asked.version, answered);
      if (!spoken) throw new AcpProtocolVersionError(asked.version, answered);
      const result = parsed("initialize", spoken.initializeResult, answer);
      this.#connection.speak(spoken);
      this.#adoptConnectionId(result);
      this.#agentCapabilities = result.agentCapabilities;
      // v1's answer is read without `capabilities` (a field it does not define passes through unread).
      this.#v2AgentCapabilities = spoken.version === 1 ? undefined : result.capabilities;
      this.#connection.streams.openConnection();
      this.#initialized = true;
      return result;
    } catch (error) {
      const unauthorized = error instanceof AcpHttpError && error.status === 401;
      if (!this.#initialized) void this.#connection.close(unauthorized ? "unauthorized" : "initialize-failed", error);
      throw error;
    }
  }

  /** `authenticate` (v1), `auth/login` (v2): signs in with one of the auth methods `initialize` listed. */
  authenticate(params: AuthenticateParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("authenticate", LooseResultSchema, params, options);
  }

  newSession(params: NewSessionParams, options?: RequestOptions): Promise<NewSessionResult> {
    return this.#call("newSession", NewSessionResultSchema, params, options);
  }

  /** `session/load` (v1 only: v2 resumes with `resumeSession({ replayFrom })`). */
  loadSession(params: LoadSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("loadSession", LooseResultSchema, params, options);
  }

  /**
   * Sends a prompt and resolves when its turn is over. v1: with the answer to `session/prompt`. v2
   * (draft): the answer only acknowledges the prompt (`messageId`); the turn is over when the
   * session's `state_update` reports `idle`, and the promise resolves with that idle's stop reason,
   * after every update delivered before it. A prompt the agent refuses fails at once; an abort, the
   * deadline or a close ends the wait as in v1 (`{ signal, timeoutMs }` bound the whole turn).
   */
  prompt(params: PromptParams, options?: RequestOptions): Promise<PromptResult> {
    if (this.#connection.profile.turnEnd === "idle") return this.#promptUntilIdle(params, options);
    return this.#call("prompt", PromptResultSchema, params, options);
  }

  cancel(params: CancelParams): Promise<void> {
    return this.notify("session/cancel", params);
  }

  /** `session/set_mode` (v1 only). */
  setSessionMode(params: SetSessionModeParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("setSessionMode", LooseResultSchema, params, options);
  }

  setSessionConfigOption(params: SetSessionConfigOptionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("setSessionConfigOption", LooseResultSchema, params, options);
  }

  /** `session/list` (stable; the agent advertises `sessionCapabilities.list`): one page of its sessions. */
  listSessions(params: ListSessionsParams = {}, options?: RequestOptions): Promise<ListSessionsResult> {
    return this.#call("listSessions", ListSessionsResultSchema, params, options);
  }

  /**
   * `session/delete` (stable; `sessionCapabilities.delete`): the session is gone from `session/list`.
   * v2: its prompts still waiting for their idle end as `cancelled` (the agent sends nothing more).
   */
  deleteSession(params: SessionIdParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#endingSession(params.sessionId, this.#call("deleteSession", LooseResultSchema, params, options));
  }

  /**
   * `session/resume` (stable; `sessionCapabilities.resume`): the session opened on this connection
   * without a replay of its history (unlike `session/load`). v2: with `replayFrom` (`{ type: "start" }`)
   * the agent replays the history first (refused on v1 before anything is sent).
   */
  resumeSession(params: ResumeSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("resumeSession", LooseResultSchema, params, options);
  }

  /**
   * `session/close` (stable; `sessionCapabilities.close`): ends one session's work, and its event stream.
   * v2: its prompts still waiting for their idle end as `cancelled` once the close is answered (also
   * when the agent answers that the session is unknown, -32002), since the agent sends nothing more.
   */
  closeSession(params: CloseSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#endingSession(params.sessionId, this.#call("closeSession", LooseResultSchema, params, options), true);
  }

  /** `logout` (stable; `auth.logout`), `auth/logout` (v2): new sessions need `authenticate` again. */
  logout(params: { _meta?: Record<string, unknown> } = {}, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("logout", LooseResultSchema, params, options);
  }

  /**
   * `tool_call/cancel` (v2 draft only): stops one tool call that advertises `capabilities.cancel`. The
   * agent confirms with a `tool_call_update` to a final status; the answer only accepts the request.
   */
  cancelToolCall(
    params: { sessionId: string; toolCallId: string; _meta?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<LooseResult> {
    return this.#call("cancelToolCall", LooseResultSchema, params, options);
  }

  /**
   * `terminal/cancel` (v2 draft only): stops the process of one agent-owned terminal that advertises
   * `capabilities.cancel`; a `terminal_update` with `exitStatus` confirms it.
   */
  cancelTerminal(
    params: { sessionId: string; terminalId: string; _meta?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<LooseResult> {
    return this.#call("cancelTerminal", LooseResultSchema, params, options);
  }

  /** @deprecated `session/list` is stable: use `listSessions`. */
  unstableListSessions(params: ListSessionsParams = {}, options?: RequestOptions): Promise<ListSessionsResult> {
    return this.listSessions(params, options);
  }

  /** @deprecated `session/resume` is stable: use `resumeSession`. */
  unstableResumeSession(params: ResumeSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.resumeSession(params, options);
  }

  // The unstable methods: sent only when the agent advertised them, else `AcpUnsupportedError`.

  /** `session/fork` (unstable; `sessionCapabilities.fork`): a new session starting from this one's history. */
  unstableForkSession(params: ResumeSessionParams, options?: RequestOptions): Promise<ForkSessionResult> {
    return this.#unstable("unstableForkSession", "fork", ForkSessionResultSchema, params, options);
  }

  /** `session/archive` (unstable; `sessionCapabilities.archive`): hides the session from `session/list`. */
  unstableArchiveSession(params: SessionIdParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#unstable("unstableArchiveSession", "archive", LooseResultSchema, params, options);
  }

  /** `session/unarchive` (unstable; `sessionCapabilities.archive`): brings an archived session back. */
  unstableUnarchiveSession(params: SessionIdParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#unstable("unstableUnarchiveSession", "archive", LooseResultSchema, params, options);
  }

  /** `session/status` (unstable; `sessionCapabilities.status`): the session's state, as the agent answers it. */
  unstableSessionStatus(params: SessionIdParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#unstable("unstableSessionStatus", "status", LooseResultSchema, params, options);
  }

  /** `session/set_title` (unstable; `sessionCapabilities.title`): renames the session. */
  unstableSetSessionTitle(params: SetSessionTitleParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#unstable("unstableSetSessionTitle", "title", LooseResultSchema, params, options);
  }

  unstableSetSessionModel(params: SetSessionModelParams, options?: RequestOptions): Promise<LooseResult> {
    return this.#call("unstableSetSessionModel", LooseResultSchema, params, options);
  }

  /** @deprecated `session/close` is stable: use `closeSession`. */
  unstableCloseSession(params: CloseSessionParams, options?: RequestOptions): Promise<LooseResult> {
    return this.closeSession(params, options);
  }

  /** A request with any method name, sent verbatim (extension methods start with `_`). */
  extMethod(method: string, params?: unknown, options?: RequestOptions): Promise<unknown> {
    return this.request(method, params, options);
  }

  extNotification(method: string, params?: unknown): Promise<void> {
    return this.notify(method, params);
  }

  /**
   * Closes the connection: stops the streams, rejects what is pending, completes the
   * observables, then sends a bounded DELETE. Safe to call more than once.
   */
  async disconnect(): Promise<void> {
    await this.#connection.close("disconnected");
  }

  #unstable<T>(
    name: string,
    capability: keyof NonNullable<AgentCapabilities["sessionCapabilities"]>,
    schema: v.GenericSchema<unknown, T>,
    params: unknown,
    options?: RequestOptions,
  ): Promise<T> {
    const method = this.#connection.profile.methods[name];
    if (method && !this.#agentCapabilities?.sessionCapabilities?.[capability]) {
      return Promise.reject(new AcpUnsupportedError(method, `sessionCapabilities.${capability}`));
    }
    return this.#call(name, schema, params, options);
  }

  /**
   * The client method `name` in the version spoken (PROTOCOL_PROFILES): sent under that version's
   * name, or refused before anything is sent when the version has no such method or parameter.
   */
  #call<T>(name: string, schema: v.GenericSchema<unknown, T>, params: unknown, options?: RequestOptions): Promise<T> {
    const profile = this.#connection.profile;
    const method = profile.methods[name];
    if (method === undefined) {
      const other = Object.values(PROTOCOL_PROFILES).find((candidate) => candidate.methods[name] !== undefined);
      const elsewhere = other ? ` (ACP ${other.version} has it)` : "";
      return Promise.reject(
        new AcpUnsupportedError(
          other?.methods[name] ?? name,
          `protocolVersion ${other?.version ?? "?"}`,
          `not part of ACP ${profile.version}, the version this connection speaks${elsewhere}`,
        ),
      );
    }
    const absent = profile.absentParams[name]?.find(
      (param) => (params as Record<string, unknown> | undefined)?.[param] != null,
    );
    if (absent) {
      const has = Object.values(PROTOCOL_PROFILES).find((other) => !other.absentParams[name]?.includes(absent));
      return Promise.reject(
        new AcpUnsupportedError(
          method,
          `protocolVersion ${has?.version ?? "?"}`,
          `\`${absent}\` is not part of ACP ${profile.version}, the version this connection speaks`,
        ),
      );
    }
    return this.#typed(method, schema, params, options, name === "initialize");
  }

  /** `initialize`'s parameters in the version asked for, with what the handlers make possible. */
  #initializeParams(params: Partial<InitializeParams>): InitializeParams {
    const { handlers, clientInfo } = this.#options;
    const { handlerCapabilities, version } = this.#connection.profile;
    const { info, capabilities } = this.#connection.profile.initialize;
    const can = (capability: "fs" | "terminal" | "elicitation") => handlerCapabilities.includes(capability);
    const fromHandlers = {
      ...(can("fs")
        ? { fs: { readTextFile: Boolean(handlers.readTextFile), writeTextFile: Boolean(handlers.writeTextFile) } }
        : {}),
      ...(can("terminal") ? { terminal: Boolean(handlers.createTerminal) } : {}),
      // Only with a handler: an agent told nothing never asks, where the default would decline.
      ...(can("elicitation") && handlers.createElicitation ? { elicitation: { form: {}, url: {} } } : {}),
    };
    return {
      protocolVersion: version,
      [info]: clientInfo,
      ...params,
      // What the handlers can do, with the caller's own capabilities (`session`, ...) over them.
      [capabilities]: { ...fromHandlers, ...(params[capabilities] as Record<string, unknown> | undefined) },
    };
  }

  /**
   * A close or delete of `sessionId`: once the agent answered it (a close also when it says the session
   * is unknown), the session's v2 turns still waiting end as `cancelled`; no idle will come for them.
   */
  async #endingSession<T>(sessionId: string, call: Promise<T>, unknownIsEnded = false): Promise<T> {
    const end = (): void => this.#connection.turns?.endSession(sessionId, { stopReason: "cancelled" });
    try {
      const result = await call;
      end();
      return result;
    } catch (error) {
      if (unknownIsEnded && error instanceof AcpRpcError && error.code === RESOURCE_NOT_FOUND) end();
      throw error;
    }
  }

  /**
   * A v2 prompt: one deadline signal for the acknowledgement and the wait for idle; the turn listens
   * from before the prompt is sent, since its updates (even its idle) may come before the answer.
   */
  async #promptUntilIdle(params: PromptParams, options: RequestOptions = {}): Promise<PromptResult> {
    const method = "session/prompt";
    const turns = this.#connection.turns;
    if (!turns) throw new AcpProtocolError("this connection's version does not end turns on idle", { method });
    const deadline = deadlineSignal(options, (ms) => new AcpTimeoutError(method, ms));
    const turn = turns.open(params.sessionId);
    try {
      const ack = await this.#call("prompt", V2PromptAckSchema, params, { signal: deadline.signal });
      const idle = await untilAborted(turn.acknowledged(ack.messageId), deadline.signal, (reason) => {
        // The prompt is in the session: given up (abort, deadline), the agent is told to stop the turn,
        // as a v1 prompt's `$/cancel_request` tells it (option `cancelRequests`).
        if (this.#options.cancelRequests) this.notify("session/cancel", { sessionId: params.sessionId }).catch(noop);
        return reason instanceof AcpTimeoutError ? reason : new AcpAbortError(method, reason);
      });
      return {
        stopReason: idle.stopReason ?? UNREPORTED_STOP_REASON,
        messageId: ack.messageId,
        ...(idle.error ? { error: idle.error } : {}),
        ...(idle._meta ? { _meta: idle._meta } : {}),
      };
    } finally {
      turn.dispose();
      deadline.dispose();
    }
  }

  async #typed<T>(
    method: string,
    schema: v.GenericSchema<unknown, T>,
    params: unknown,
    options: RequestOptions = {},
    deferStream = false,
  ): Promise<T> {
    return parsed(method, schema, await this.#connection.request(method, params, options, deferStream));
  }

  /** The RFD profile also puts the id in the initialize result: a browser may not see the header. */
  #adoptConnectionId(result: InitializeResult): void {
    // Only per-session streams need it (over a WebSocket there are none: the id is informational).
    if (!this.#connection.streams.perSession || this.connectionId) return;
    const fromResult = (result as { connectionId?: unknown }).connectionId;
    if (typeof fromResult !== "string") {
      throw new AcpProtocolError(
        "the server's connection id header could not be read " +
          "(in a browser the server must list it in Access-Control-Expose-Headers)",
        { method: "initialize" },
      );
    }
    this.#connection.http.adoptConnectionId(fromResult);
  }
}

/** JSON-RPC's "resource not found" (ACP: the session is unknown). */
const RESOURCE_NOT_FOUND = -32002;
const noop = (): void => undefined;

/** A result checked against its schema; a shape the protocol does not allow is an `AcpProtocolError`. */
function parsed<T>(method: string, schema: v.GenericSchema<unknown, T>, result: unknown): T {
  const checked = v.safeParse(schema, result);
  if (checked.success) return checked.output;
  throw new AcpProtocolError(`unexpected result shape: ${checked.issues[0]?.message ?? "invalid"}`, { method });
}

/**
 * A request as a cold observable: `send` runs on subscribe, the result is emitted once, and
 * unsubscribing aborts the request (through a signal linked to the caller's own).
 */
export function coldRequest(
  send: (options: PendingOptions) => Promise<unknown>,
  options: PendingOptions,
): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    const unlink = linkSignal(options.signal, controller);
    send({ ...options, signal: controller.signal }).finally(unlink).then(
      (result) => {
        subscriber.next(result);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}
