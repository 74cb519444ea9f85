/** §1.3 agent selection helpers (rt/helpers.rs semantics as summarised by the contract). */
import { isAgentId, type AgentId } from "./agents.js";
import { asObject, sandboxMeta } from "./json.js";
import { problems } from "./problem.js";

/** §1.2 row 11-12 and §1.3 rule 1: initialize and session/new always name the agent in `_meta`. */
export function metaAgent(method: string, params: unknown): AgentId {
  const raw = sandboxMeta(params)?.agent;
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name === "") throw problems.invalidRequest(`${method} requires params._meta["sandboxagent.dev"].agent`);
  if (!isAgentId(name)) throw problems.unsupportedAgent(name);
  return name;
}

/** §1.3 rule 3: `params.agent` is optional, but when present it must be a known, non-empty string. */
export function paramsAgent(params: unknown): AgentId | undefined {
  const raw = asObject(params)?.agent;
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw problems.invalidRequest("params.agent must be a string");
  const name = raw.trim();
  if (name === "") throw problems.invalidRequest("params.agent must not be empty");
  if (!isAgentId(name)) throw problems.unsupportedAgent(name);
  return name;
}
