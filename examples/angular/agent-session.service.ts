// An Angular service around one SandboxAgentClient: the client's observables become signals for
// templates (the session's transcript is the SDK's `transcript$` through `toSignal`), permission
// requests wait in the transcript until the user answers, and the connection closes with the injector.
import { DestroyRef, Injectable, InjectionToken, computed, inject, signal } from "@angular/core";
import { toObservable, toSignal } from "@angular/core/rxjs-interop";
import { map, of, switchMap, type Observable } from "rxjs";
import {
  SandboxAgentClient,
  transcriptOf,
  type PermissionEntry,
  type SandboxEvent,
  type Transcript,
} from "sandbox-agent-rx";

export interface SandboxAgentConfig {
  baseUrl: string;
  agent: string;
  /** A string, or a function for tokens that expire (called before each request). */
  token?: string | (() => string | Promise<string>);
}

/** Provide it in the application config: `{ provide: SANDBOX_AGENT_CONFIG, useValue: {...} }`. */
export const SANDBOX_AGENT_CONFIG = new InjectionToken<SandboxAgentConfig>("SANDBOX_AGENT_CONFIG");

/** A permission request waiting for the user, with the way to answer it. */
export interface PendingPermission {
  request: PermissionEntry;
  answer(allow: boolean): void;
}

const EMPTY: Transcript = transcriptOf([]);

@Injectable({ providedIn: "root" })
export class AgentSessionService {
  readonly #config = inject(SANDBOX_AGENT_CONFIG);
  readonly #sessionId = signal<string | undefined>(undefined);
  readonly #running = signal(false);
  readonly #stopReason = signal<string | undefined>(undefined);
  readonly #error = signal<string | undefined>(undefined);

  /** The client itself, for anything the service does not wrap. */
  readonly client = new SandboxAgentClient({
    baseUrl: this.#config.baseUrl,
    agent: this.#config.agent,
    ...(this.#config.token !== undefined ? { token: this.#config.token } : {}),
    // The agent waits until the user clicks Allow or Reject (`replyPermission` below).
    onPermissionRequest: "ask",
  });

  /** Every event of every session, for components that want to pipe them themselves. */
  readonly events$: Observable<SandboxEvent> = this.client.events$;

  /** The current session's transcript (stored history, then live), following the session signal. */
  readonly transcript$: Observable<Transcript> = toObservable(this.#sessionId).pipe(
    switchMap((id) => (id === undefined ? of(EMPTY) : this.client.session(id).transcript$)),
  );

  // toSignal subscribes now and unsubscribes when this injector is destroyed.
  readonly state = toSignal(this.client.state$, { initialValue: "disconnected" as const });
  readonly transcript = toSignal(this.transcript$, { initialValue: EMPTY });
  readonly lastSessionEnded = toSignal(this.client.sessionEnded$.pipe(map((ended) => ended.reason)));

  /** The request the transcript says is waiting, with Allow / Reject picking the matching option. */
  readonly pendingPermission = computed((): PendingPermission | undefined => {
    const request = this.transcript().pendingPermission;
    const sessionId = this.#sessionId();
    if (!request || sessionId === undefined) return undefined;
    return {
      request,
      answer: (allow) => {
        const kinds = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
        const option = request.options.find((o) => kinds.includes(o.kind));
        this.client.replyPermission(
          sessionId,
          request.toolCallId,
          option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" },
        );
      },
    };
  });

  readonly sessionId = this.#sessionId.asReadonly();
  readonly running = this.#running.asReadonly();
  readonly stopReason = this.#stopReason.asReadonly();
  readonly error = this.#error.asReadonly();
  readonly connected = computed(() => this.state() === "connected");
  readonly canSend = computed(() => this.connected() && !this.#running());

  constructor() {
    // A root service lives as long as the application; this closes the connection with it.
    inject(DestroyRef).onDestroy(() => void this.client.disconnect());
    this.client.ready.catch((error: unknown) => this.#error.set(describe(error)));
  }

  /** Sends a prompt, starting a session on first use; resolves with the stop reason. */
  async send(prompt: string): Promise<string | undefined> {
    this.#running.set(true);
    this.#stopReason.set(undefined);
    this.#error.set(undefined);
    try {
      let sessionId = this.#sessionId();
      if (sessionId === undefined) {
        sessionId = (await this.client.newSession({ metadata: { title: prompt.slice(0, 48) } })).sessionId;
        this.#sessionId.set(sessionId);
      }
      const outcome = await this.client.prompt(sessionId, prompt);
      this.#stopReason.set(outcome.stopReason);
      return outcome.stopReason;
    } catch (error) {
      this.#error.set(describe(error));
      return undefined;
    } finally {
      this.#running.set(false);
    }
  }

  async cancel(): Promise<void> {
    const sessionId = this.#sessionId();
    if (sessionId !== undefined) await this.client.cancel(sessionId);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
