/** Agent ids and the in-process backend interface (§3, §7). */
import type { JsonObject } from "./json.js";

/** §3: the set the runtime handles. `pi`/`cursor` exist only in stale code ([uncertain]) and are rejected. */
export const AGENT_IDS = ["claude", "codex", "opencode", "amp", "mock"] as const;
export type AgentId = (typeof AGENT_IDS)[number];

export function isAgentId(value: string): value is AgentId {
  return (AGENT_IDS as readonly string[]).includes(value);
}

/** Messages an agent emits (notifications, requests, responses) go back to the runtime through this. */
export type AgentSink = (message: JsonObject) => void;

export interface AgentBackend {
  /** Delivers one message; resolves once the in-process agent has finished handling it (§7). */
  send(message: JsonObject): Promise<void>;
}

export const sleep = (ms: number): Promise<void> =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms).unref()) : Promise.resolve();
