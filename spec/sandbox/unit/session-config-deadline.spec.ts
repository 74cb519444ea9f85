// One deadline per session-configuration call: a set call's steps (listing the agent's options,
// the set request, recording what the agent took) share the caller's `timeoutMs`, so a call whose
// steps each take most of it ends at its deadline with CallTimeoutError. The connection and the
// server routes are stand-ins that honour a call's bounds as the real ones do (one `Bound` each).
import { Subject } from "rxjs";
import { CallTimeoutError } from "../../../lib/sandbox/index.js";
import { Bound } from "../../../lib/sandbox/deadline.js";
import type { CallOptions } from "../../../lib/sandbox/call-options.js";
import { SessionSettings } from "../../../lib/sandbox/sessions/session-config.js";
import type { ConnectionLifecycle } from "../../../lib/sandbox/connection/lifecycle.js";
import type { ServerRoutes } from "../../../lib/sandbox/server/server-routes.js";
import type { SessionRecording } from "../../../lib/sandbox/sessions/session-recording.js";
import { rejection } from "../../support/rejection.js";

const TIMEOUT_MS = 500;
/** Each step alone fits in the timeout; two do not. */
const STEP_MS = 300;

const AGENT_OPTIONS = [
  { id: "model", category: "model", type: "select", options: [{ value: "m1" }, { value: "m2" }] },
  { id: "mode", category: "mode", type: "select", options: [{ value: "normal" }, { value: "plan" }] },
  { id: "thought_level", category: "thought_level", type: "select", options: [{ value: "low" }, { value: "high" }] },
];

/** A step that takes STEP_MS, or ends with its bound's error when the call's signal aborts first. */
function step<T>(operation: string, call: CallOptions | undefined, value: T, started: string[]): Promise<T> {
  started.push(operation);
  const bound = new Bound(operation, call);
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      bound.dispose();
      reject(bound.error(bound.signal?.reason));
    };
    const timer = setTimeout(() => {
      bound.signal?.removeEventListener("abort", stop);
      bound.dispose();
      resolve(value);
    }, STEP_MS);
    if (bound.signal?.aborted) stop();
    else bound.signal?.addEventListener("abort", stop, { once: true });
  });
}

function settings() {
  const started: string[] = [];
  const lifecycle = {
    events$: new Subject(),
    with: (method: string, call: CallOptions | undefined) => step(method, call, {}, started),
  } as unknown as ConnectionLifecycle;
  const server = {
    getAgent: (_agent: string, options: CallOptions) =>
      step("getAgent", options, { configOptions: AGENT_OPTIONS }, started),
  } as unknown as ServerRoutes;
  const recording = { configChanged: () => undefined } as unknown as SessionRecording;
  const options = { baseUrl: "http://127.0.0.1:9", agent: "mock" };
  return { started, config: new SessionSettings(options, lifecycle, server, recording) };
}

describe("session configuration calls keep one deadline over their steps", () => {
  const cases: Array<[string, (config: SessionSettings) => Promise<unknown>]> = [
    ["setSessionModel", (config) => config.setModel("s1", "m2", { timeoutMs: TIMEOUT_MS })],
    ["setSessionMode", (config) => config.setMode("s1", "plan", { timeoutMs: TIMEOUT_MS })],
    ["setSessionConfigOption", (config) => config.setOption("s1", "effort", "high", { timeoutMs: TIMEOUT_MS })],
    ["set the thought_level option", (c) => c.setCategory("s1", "thought_level", "high", { timeoutMs: TIMEOUT_MS })],
  ];

  it.each(cases)("%s: two steps of most of timeoutMs end in CallTimeoutError at the deadline", async (name, run) => {
    const { started, config } = settings();
    // A session that reported modes but no options: the call lists the agent's, before or after it sets.
    const modes = { currentModeId: "normal", availableModes: [{ id: "normal" }, { id: "plan" }] };
    config.record("s1", { sessionId: "s1", modes });
    const error = await rejection(run(config));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toBe(`${name} timed out after ${TIMEOUT_MS} ms`);
    expect(started.length).toBe(2);
  });
});
