// The demo agent ships with the package so that a first turn needs no API key and no network: a
// scripted ACP agent (demo-agent.mjs, emitted next to this module by the build) that streams a plan,
// a thought, tool calls, a permission request and a markdown answer, without any model.
// Not named demo-agent.ts: a module resolver that tries .mjs before .ts would load the script instead.
import { fileURLToPath } from "node:url";

/**
 * Path of the demo agent, an executable ACP agent script. Install it as the local server's `mock`
 * agent and drive it with `agent: "mock"`:
 *
 * ```ts
 * const client = await SandboxAgentClient.start({ sandbox: local({ mockAgent: demoAgent }), agent: "mock" });
 * ```
 *
 * It reacts to two words in a prompt: `quick` (no pauses between updates) and `fail` (the turn
 * fails with a JSON-RPC error).
 */
export const demoAgent: string = fileURLToPath(new URL("./demo-agent.mjs", import.meta.url));
