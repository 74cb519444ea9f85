// The hints a newcomer needs when the first steps fail: which agent, what this server knows, what to
// do next. Each takes a failure already mapped (error-mapping.ts) and returns it as it is, or a
// clearer one with the original as `cause`. They are asynchronous where the hint needs the server:
// the agents it knows, whether a browser's request was refused by CORS rather than unanswered.
import { AcpError } from "../acp-http/index.js";
import {
  CallAbortedError,
  CallTimeoutError,
  SandboxAgentError,
  SandboxAgentHttpError,
  type HttpErrorOptions,
} from "./errors.js";

/** How long a hint may spend asking the server (the agents it knows, a CORS check). */
const LOOKUP_MS = 3000;

/** What the hints of a failed connect need to know. */
export interface ConnectFailureContext {
  agent: string;
  baseUrl: string;
  /** The ids of the agents the server knows (for an unknown agent id); may fail. */
  knownAgents(signal: AbortSignal): Promise<string[]>;
  fetch: typeof globalThis.fetch | undefined;
}

/** The same HTTP error (same class, status and problem) with the client's kind or hint. */
function rebuilt(error: SandboxAgentHttpError, extra: Pick<HttpErrorOptions, "kind" | "hint">): SandboxAgentHttpError {
  const Class = error.constructor as typeof SandboxAgentHttpError;
  const { operation, status, problem, bodyText, processId, command } = error;
  return new Class(operation, status, problem, bodyText, {
    cause: error.cause ?? error,
    kind: extra.kind ?? error.kind,
    ...(extra.hint !== undefined ? { hint: extra.hint } : {}),
    ...(processId !== undefined ? { processId } : {}),
    ...(command !== undefined ? { command } : {}),
  });
}

/**
 * An unknown agent id (`unsupported_agent`, from `connect`, `getAgent`, `installAgent`): the message
 * lists the agents the server knows. Without that list (it failed, or took too long) the error stays.
 */
export async function withKnownAgents(
  error: unknown,
  knownAgents: (signal: AbortSignal) => Promise<string[]>,
): Promise<unknown> {
  if (!(error instanceof SandboxAgentHttpError) || error.code !== "unsupported_agent") return error;
  const ids = await knownAgents(AbortSignal.timeout(LOOKUP_MS)).catch(() => undefined);
  if (!ids || ids.length === 0) return error;
  const asked = typeof error.problem?.agent === "string" ? `"${error.problem.agent}" ` : "";
  return rebuilt(error, { hint: `The agent ${asked}is not one this server knows; it knows ${ids.join(", ")}` });
}

/**
 * A failed connect made clearer where the server's words leave a newcomer stuck: an unknown agent
 * id (the known ones listed), an agent whose program the server cannot start (not installed there:
 * how to get it), an answer that is not ACP (baseUrl is not a sandbox-agent server), a browser's
 * request refused by CORS (which flag allows this origin). Anything else, and a call the caller
 * ended itself, passes unchanged.
 */
export async function explainConnectFailure(error: unknown, context: ConnectFailureContext): Promise<unknown> {
  if (error instanceof CallAbortedError || error instanceof CallTimeoutError) return error;
  const { agent, baseUrl } = context;
  if (error instanceof SandboxAgentHttpError) {
    if (error.code === "unsupported_agent") return withKnownAgents(error, context.knownAgents);
    // The released server's words for a launcher it cannot run (missing: os error 2; not executable: 13).
    if (error.status === 502 && /failed to start agent process/i.test(error.problem?.detail ?? "")) {
      const hint =
        `The server could not start agent "${agent}": its program is not installed on that server, or cannot ` +
        `be run there. Install it with installAgent("${agent}"); for a local sandbox, ` +
        'local({ mockAgent: "/path/to/agent" }) runs a program of your own as the "mock" agent';
      return rebuilt(error, { kind: "agent-start-failed", hint });
    }
    if (error.code === "agent_not_installed" && typeof error.problem?.agent !== "string") {
      const hint =
        `The server runs only agents installed beforehand: install "${agent}" first with installAgent("${agent}")`;
      return rebuilt(error, { hint });
    }
    if (error.status === 404 && error.problem === undefined) return notSandboxAgent(error, baseUrl, "with a bare 404");
    return error;
  }
  if (!(error instanceof SandboxAgentError)) return error;
  if (error.kind === "protocol" && error.cause instanceof AcpError && error.cause.kind === "protocol") {
    return notSandboxAgent(error, baseUrl, `with something that is not ACP (${error.message})`);
  }
  if (error.kind === "network") return corsReading(error, context);
  return error;
}

function notSandboxAgent(error: Error, baseUrl: string, how: string): SandboxAgentError {
  const message =
    `connect failed: the server at ${baseUrl} answered the agent connection ${how}; ` +
    "it does not look like a sandbox-agent server: check that baseUrl points at one (not at a web app or a proxy " +
    "that answers for it)";
  return new SandboxAgentError(message, { cause: error, kind: "protocol" });
}

/**
 * In a browser, a request CORS refused fails exactly like one that reached nobody. A `no-cors`
 * request to the same server tells them apart: it gets an (opaque) answer when the server is there.
 */
async function corsReading(error: SandboxAgentError, context: ConnectFailureContext): Promise<unknown> {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  if (typeof document === "undefined" || typeof origin !== "string" || !origin.startsWith("http")) return error;
  let target: URL;
  try {
    target = new URL(context.baseUrl);
  } catch {
    return error;
  }
  if (target.origin === origin) return error;
  const fetch = context.fetch ?? globalThis.fetch;
  const probe = new URL("/v1/health", target);
  const reachable = await fetch(probe, { mode: "no-cors", signal: AbortSignal.timeout(LOOKUP_MS) }).then(
    () => true,
    () => false,
  );
  if (!reachable) return error;
  const message =
    `connect failed: the server at ${context.baseUrl} is running but did not allow this page's origin ` +
    `(${origin}) to call it (CORS). Start it with --cors-allow-origin ${origin} ` +
    `(local({ cors: { origins: ["${origin}"] } }) for a local sandbox)`;
  return new SandboxAgentError(message, { cause: error, kind: "cors" });
}
