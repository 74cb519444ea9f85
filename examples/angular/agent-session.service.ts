// An Angular service around one SandboxAgentClient: the client's observables become signals for
// templates, permission requests become UI state, and the connection closes with the injector.
import { DestroyRef, Injectable, InjectionToken, computed, inject, signal } from "@angular/core";
import { toSignal } from "@angular/core/rxjs-interop";
import { filter, map, scan, type Observable } from "rxjs";
import {
  SandboxAgentClient,
  type PermissionReply,
  type PermissionRequest,
  type PlanEntry,
  type SandboxEvent,
} from "../../lib/sandbox/index.js";

export interface SandboxAgentConfig {
  baseUrl: string;
  agent: string;
  /** A string, or a function for tokens that expire (called before each request). */
  token?: string | (() => string | Promise<string>);
}

/** Provide it in the application config: `{ provide: SANDBOX_AGENT_CONFIG, useValue: {...} }`. */
export const SANDBOX_AGENT_CONFIG = new InjectionToken<SandboxAgentConfig>("SANDBOX_AGENT_CONFIG");

export interface ToolCallView {
  id: string;
  title: string;
  status: string;
}

/** A permission request waiting for the user, with the way to answer it. */
export interface PendingPermission {
  request: PermissionRequest;
  answer(allow: boolean): void;
}

/** What the view shows of the current session, folded from its events. */
export interface Transcript {
  text: string;
  thoughts: string;
  plan: PlanEntry[];
  tools: ToolCallView[];
}

const EMPTY: Transcript = { text: "", thoughts: "", plan: [], tools: [] };

function fold(transcript: Transcript, event: SandboxEvent): Transcript {
  if (event.kind !== "update") return transcript;
  const update = event.update;
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return { ...transcript, text: transcript.text + (update.content.text ?? "") };
    case "agent_thought_chunk":
      return { ...transcript, thoughts: transcript.thoughts + (update.content.text ?? "") };
    case "plan":
      return { ...transcript, plan: update.entries };
    case "tool_call":
    case "tool_call_update": {
      const known = transcript.tools.find((tool) => tool.id === update.toolCallId);
      const next: ToolCallView = {
        id: update.toolCallId,
        title: update.title ?? known?.title ?? update.toolCallId,
        status: update.status ?? known?.status ?? "pending",
      };
      const tools = known ? transcript.tools.map((tool) => (tool === known ? next : tool)) : [...transcript.tools, next];
      return { ...transcript, tools };
    }
    default:
      return transcript;
  }
}

@Injectable({ providedIn: "root" })
export class AgentSessionService {
  readonly #config = inject(SANDBOX_AGENT_CONFIG);
  readonly #sessionId = signal<string | undefined>(undefined);
  readonly #pending = signal<PendingPermission | undefined>(undefined);
  readonly #running = signal(false);
  readonly #stopReason = signal<string | undefined>(undefined);
  readonly #error = signal<string | undefined>(undefined);

  /** The client itself, for anything the service does not wrap. */
  readonly client = new SandboxAgentClient({
    baseUrl: this.#config.baseUrl,
    agent: this.#config.agent,
    ...(this.#config.token !== undefined ? { token: this.#config.token } : {}),
    // The agent waits on this promise until the user clicks Allow or Reject.
    onPermissionRequest: (request) =>
      new Promise<PermissionReply>((resolve) => {
        this.#pending.set({
          request,
          answer: (allow) => {
            this.#pending.set(undefined);
            const kinds = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
            const option = request.options.find((o) => kinds.includes(o.kind));
            resolve(option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" });
          },
        });
      }),
  });

  /** Every event of every session, for components that want to pipe them themselves. */
  readonly events$: Observable<SandboxEvent> = this.client.events$;

  /** The current session's transcript as an observable, restarting with each new session. */
  readonly transcript$: Observable<Transcript> = this.client.events$.pipe(
    filter((event) => "sessionId" in event && event.sessionId === this.#sessionId()),
    scan(fold, EMPTY),
  );

  // toSignal subscribes now and unsubscribes when this injector is destroyed.
  readonly state = toSignal(this.client.state$, { initialValue: "disconnected" as const });
  readonly transcript = toSignal(this.transcript$, { initialValue: EMPTY });
  readonly lastSessionEnded = toSignal(this.client.sessionEnded$.pipe(map((ended) => ended.reason)));

  readonly sessionId = this.#sessionId.asReadonly();
  readonly pendingPermission = this.#pending.asReadonly();
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
