/**
 * Headless React hooks over the client's observables, on `useSyncExternalStore`: a session's
 * transcript, the connection state, the pending permission request and the agent's pending question,
 * each with a reply function. No
 * components and no styling: render the snapshots as you like (see `docs/transcript.md`).
 *
 * Concurrent-rendering safe: each hook reads an external store whose snapshot is an immutable object
 * that stays the same until the stream emits a new one, so React can compare snapshots and never
 * shows two components different versions of one store in the same commit. Components that ask for
 * the same client and session share one subscription; it ends a moment after the last one unmounts
 * (so StrictMode's unmount-and-mount does not read the history twice).
 *
 * `react` (>= 18) is an optional peer dependency of the package, needed only for this entry point.
 *
 * @module sandbox-agent-rx/react
 */
import { useCallback, useMemo, useSyncExternalStore } from "react";
import type { Observable } from "rxjs";
import {
  transcriptOf,
  type ConnectionState,
  type InputEntry,
  type InputReply,
  type PermissionEntry,
  type PermissionReply,
  type SandboxAgentClient,
  type Transcript,
} from "../sandbox/index.js";

/** What `useTranscript` needs of a client (a `SandboxAgentClient` has it). */
export type TranscriptClient = Pick<SandboxAgentClient, "session">;
/** What `usePermission` needs of a client. */
export type PermissionClient = Pick<SandboxAgentClient, "session" | "replyPermission">;
/** What `useInput` needs of a client. */
export type InputClient = Pick<SandboxAgentClient, "session" | "replyInput">;
/** What `useConnectionState` needs of a client. */
export type ConnectionClient = Pick<SandboxAgentClient, "state" | "state$">;

/**
 * An external store over an observable: the latest value, and listeners told of each new one. A
 * source that errors keeps its last value and reports the error through `getFailure()` (listeners are
 * told); the next subscription after the last listener left subscribes afresh.
 */
export interface ObservableStore<T> {
  subscribe(listener: () => void): () => void;
  getSnapshot(): T;
  /** The source's error once it failed, boxed (so any thrown value counts); undefined while it runs. */
  getFailure(): { error: unknown } | undefined;
}

/** The options of `observableStore()`: how long its subscription outlives its last listener, and what to call then. */
export interface ObservableStoreOptions {
  /** How long the subscription outlives its last listener (default 0: until the next macrotask). */
  lingerMs?: number;
  /** Called when the subscription ended for want of listeners. */
  onIdle?: () => void;
}

/**
 * A store for `useSyncExternalStore` over `source`: subscribed while it has listeners (and for
 * `lingerMs` after the last one leaves), `getSnapshot()` returning the latest value (`initial` until
 * the first), the same object until the source emits another.
 */
export function observableStore<T>(
  source: Observable<T>,
  initial: T,
  options: ObservableStoreOptions = {},
): ObservableStore<T> {
  const { lingerMs = 0, onIdle } = options;
  let current = initial;
  let failure: { error: unknown } | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  let subscription: { unsubscribe(): void } | undefined;
  let teardown: ReturnType<typeof setTimeout> | undefined;
  return {
    getSnapshot: () => current,
    getFailure: () => failure,
    subscribe(listener) {
      listeners.add(listener);
      if (teardown !== undefined) {
        clearTimeout(teardown);
        teardown = undefined;
      }
      if (!subscription) {
        // A failed source is subscribed afresh (an error boundary's retry remounts its readers).
        failure = undefined;
        // The error handler is what keeps a failing source from becoming an uncaught exception.
        subscription = source.subscribe({
          next: (value) => {
            if (Object.is(value, current)) return;
            current = value;
            notify();
          },
          error: (error: unknown) => {
            failure = { error };
            notify();
          },
        });
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0 || teardown !== undefined) return;
        teardown = setTimeout(() => {
          teardown = undefined;
          if (listeners.size > 0) return;
          subscription?.unsubscribe();
          subscription = undefined;
          onIdle?.();
        }, lingerMs);
      };
    },
  };
}

const EMPTY: Transcript = transcriptOf([]);
/** One store per client and session, shared by every component that asks for it. */
const transcripts = new WeakMap<object, Map<string, ObservableStore<Transcript>>>();

/** The store `useTranscript` reads (for use outside React, or to share with other state libraries). */
export function transcriptStore(client: TranscriptClient, sessionId: string): ObservableStore<Transcript> {
  let perClient = transcripts.get(client);
  if (!perClient) transcripts.set(client, (perClient = new Map()));
  let store = perClient.get(sessionId);
  if (!store) {
    // Forgotten once nobody reads it: a later reader starts from the history again, and a client with
    // many sessions opened over time does not keep all their transcripts.
    const created: ObservableStore<Transcript> = observableStore(client.session(sessionId).transcript$, EMPTY, {
      onIdle: () => {
        if (perClient?.get(sessionId) === created) perClient.delete(sessionId);
      },
    });
    perClient.set(sessionId, created);
    store = created;
  }
  return store;
}

/**
 * The session's transcript (see `SessionView.transcript$`): the stored history, then every change as
 * it happens. Re-renders only when the transcript changed; entries that did not change are the same
 * objects as in the previous render, so `React.memo` on an entry component skips them. Without a
 * session id: the empty transcript. A failing stream (a store that cannot be read) is thrown during
 * render, into the nearest error boundary; it is a `StoreError` also emitted on `storeErrors$`.
 */
export function useTranscript(client: TranscriptClient, sessionId: string | undefined): Transcript {
  return useTranscriptPart(client, sessionId, whole);
}

/**
 * One part of the session's transcript, read by `part`: re-renders only when that part changed (the
 * transcript keeps an unchanged entry the same object), so a permission card does not re-render for
 * every streamed chunk. `part` must be a stable function (declared once, outside the component).
 */
function useTranscriptPart<T>(client: TranscriptClient, sessionId: string | undefined, part: (t: Transcript) => T): T {
  const store = useMemo(
    () => (sessionId === undefined ? undefined : transcriptStore(client, sessionId)),
    [client, sessionId],
  );
  return useStore(store ?? EMPTY_STORE, part);
}

const whole = (transcript: Transcript): Transcript => transcript;
const pendingPermissionOf = (transcript: Transcript) => transcript.pendingPermission;
const pendingInputOf = (transcript: Transcript) => transcript.pendingInput;

/** The pending permission request of a session, and how to answer it. */
export interface PermissionState {
  /** The request waiting for an answer (the oldest when several), or undefined. */
  request: PermissionEntry | undefined;
  /**
   * Answers it: an option id (`selected`), `"cancelled"`, or a `PermissionReply`. False when nothing
   * is waiting any more (answered elsewhere, withdrawn, the turn ended). Needs the client's
   * `onPermissionRequest: "ask"`; with a handler of your own the handler answers, not this.
   */
  reply(answer: string | "cancelled" | PermissionReply): boolean;
}

/** The session's pending permission request and a reply function, from its transcript. */
export function usePermission(client: PermissionClient, sessionId: string | undefined): PermissionState {
  const request = useTranscriptPart(client, sessionId, pendingPermissionOf);
  const toolCallId = request?.toolCallId;
  const reply = useCallback(
    (answer: string | PermissionReply): boolean => {
      if (sessionId === undefined || toolCallId === undefined) return false;
      const outcome: PermissionReply = typeof answer === "object"
        ? answer
        : answer === "cancelled"
          ? { outcome: "cancelled" }
          : { outcome: "selected", optionId: answer };
      return client.replyPermission(sessionId, toolCallId, outcome);
    },
    [client, sessionId, toolCallId],
  );
  return useMemo(() => ({ request, reply }), [request, reply]);
}

/** The agent's pending question in a session, and how to answer it. */
export interface InputState {
  /** The question waiting for an answer (the oldest when several), or undefined. */
  request: InputEntry | undefined;
  /**
   * Answers it (`{ action: "accept", values }`, `{ action: "decline" }`, `{ action: "cancel" }`). False
   * when nothing is waiting any more (answered elsewhere, or its turn ended). Needs the client's
   * `onInput: "ask"`; with a handler of your own the handler answers, not this.
   */
  reply(answer: InputReply): boolean;
}

/** The session's pending question of the agent (a form or a URL) and a reply function, from its transcript. */
export function useInput(client: InputClient, sessionId: string | undefined): InputState {
  const request = useTranscriptPart(client, sessionId, pendingInputOf);
  const requestId = request?.requestId;
  const reply = useCallback(
    (answer: InputReply): boolean => {
      if (sessionId === undefined || requestId === undefined) return false;
      return client.replyInput(sessionId, requestId, answer);
    },
    [client, sessionId, requestId],
  );
  return useMemo(() => ({ request, reply }), [request, reply]);
}

/** The client's connection state: `disconnected`, `connecting`, `connected`, `reconnecting`. */
export function useConnectionState(client: ConnectionClient): ConnectionState {
  const subscribe = useCallback(
    (listener: () => void) => {
      const subscription = client.state$.subscribe(() => listener());
      return () => subscription.unsubscribe();
    },
    [client],
  );
  const getSnapshot = useCallback(() => client.state, [client]);
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/**
 * The latest value of any observable (`initial` until the first). Pass a stable observable (memoise
 * it: `useMemo(() => client.session(id).events$.pipe(...), [client, id])`): a new one each render
 * resubscribes each render. The source's error is thrown during render, into the nearest error boundary.
 */
export function useObservable<T>(source: Observable<T>, initial: T): T {
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const store = useMemo(() => observableStore(source, initial), [source]);
  return useStore(store);
}

/**
 * A store's latest value (or the part of it `part` reads, re-rendering only when that part changes);
 * its source's error thrown during render, so the nearest error boundary
 * shows it (and its reset mounts the readers again, which subscribe afresh).
 */
function useStore<T, R = T>(store: ObservableStore<T>, part?: (value: T) => R): R {
  const read = useMemo(() => (part ? () => part(store.getSnapshot()) : store.getSnapshot), [store, part]) as () => R;
  const value = useSyncExternalStore(store.subscribe, read, read);
  const failure = useSyncExternalStore(store.subscribe, store.getFailure, store.getFailure);
  if (failure) throw failure.error;
  return value;
}

const EMPTY_STORE: ObservableStore<Transcript> = {
  subscribe: () => () => undefined,
  getSnapshot: () => EMPTY,
  getFailure: () => undefined,
};
