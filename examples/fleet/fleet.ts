// A fleet: N sandboxes from one provider, one client each, prompts fanned out over them with
// mergeMap(…, concurrency), results gathered, and every sandbox destroyed at the end, even when a
// start or a prompt fails. The provider is a parameter: local(), docker(), or a remote one.
import { Observable, defer, filter, from, lastValueFrom, map, mergeMap, range, reduce, toArray } from "rxjs";
import {
  startSandbox,
  type PermissionReply,
  type PermissionRequest,
  type PromptEvent,
  type SandboxProvider,
  type StartSandboxOptions,
  type StartedSandbox,
} from "sandbox-agent-rx";

export interface FleetOptions {
  provider: SandboxProvider;
  /** How many sandboxes to run. */
  sandboxes: number;
  /** The prompts; prompt i goes to sandbox i mod `sandboxes`. */
  prompts: string[];
  /** Prompts in flight at once across the fleet; default one per sandbox. */
  concurrency?: number;
  /** Sandboxes starting at once; default all of them. */
  startConcurrency?: number;
  agent?: string;
  /** Client options for every sandbox (permission handler, reconnect policy, ...). */
  client?: Omit<StartSandboxOptions, "sandbox" | "agent">;
}

export interface PromptResult {
  prompt: string;
  sandbox: number;
  stopReason: string;
  /** The agent's answer: its message chunks joined. */
  text: string;
  ms: number;
}

export interface FleetResult {
  results: PromptResult[];
  /** From the first start to the last result. */
  totalMs: number;
  /** Time to bring the fleet up. */
  startMs: number;
}

/** Allows what the agent asks (the demo agent asks before it writes a file). */
export const allowOnce = (request: PermissionRequest): PermissionReply => {
  const allow = request.options.find((option) => option.kind.startsWith("allow"));
  return allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" };
};

/** Starts one sandbox; unsubscribing cancels the start, and a start that completes anyway is destroyed. */
function start$(options: StartSandboxOptions, fleet: StartedSandbox[]): Observable<StartedSandbox> {
  return new Observable((subscriber) => {
    const controller = new AbortController();
    startSandbox({ ...options, signal: controller.signal }).then(
      (started) => {
        if (subscriber.closed) return void started.destroy().catch(() => undefined);
        fleet.push(started);
        subscriber.next(started);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}

/** One prompt in a fresh session of `sandbox`, its message text gathered from the turn's events. */
function prompt$(sandbox: StartedSandbox, index: number, prompt: string): Observable<PromptResult> {
  return defer(async () => ({ session: await sandbox.client.newSession(), at: performance.now() })).pipe(
    mergeMap(({ session, at }) =>
      sandbox.client.prompt$(session.sessionId, [{ type: "text", text: prompt }]).pipe(
        reduce(
          (acc, event: PromptEvent) => {
            if (event.kind === "stop") return { ...acc, stopReason: event.stopReason };
            if (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk") {
              return { ...acc, text: acc.text + (event.update.content.text ?? "") };
            }
            return acc;
          },
          { text: "", stopReason: "" },
        ),
        map(({ text, stopReason }) => ({ prompt, sandbox: index, stopReason, text, ms: performance.now() - at })),
      ),
    ),
  );
}

/** Runs the fleet; resolves with every result, or rejects with the first failure. Destroys all either way. */
export async function runFleet(options: FleetOptions): Promise<FleetResult> {
  const fleet: StartedSandbox[] = [];
  const began = performance.now();
  try {
    const startOptions: StartSandboxOptions = {
      onPermissionRequest: allowOnce,
      ...options.client,
      sandbox: options.provider,
      agent: options.agent ?? "mock",
    };
    const started = await lastValueFrom(
      range(0, options.sandboxes).pipe(
        mergeMap(() => start$(startOptions, fleet), options.startConcurrency ?? options.sandboxes),
        toArray(),
      ),
    );
    const startMs = performance.now() - began;
    const results = await lastValueFrom(
      from(options.prompts.map((prompt, i) => ({ prompt, i }))).pipe(
        mergeMap(({ prompt, i }) => {
          const index = i % started.length;
          return prompt$(started[index] as StartedSandbox, index, prompt);
        }, options.concurrency ?? options.sandboxes),
        filter((result): result is PromptResult => result !== undefined),
        toArray(),
      ),
    );
    return { results, startMs, totalMs: performance.now() - began };
  } finally {
    await Promise.allSettled(fleet.map((sandbox) => sandbox.destroy()));
  }
}
