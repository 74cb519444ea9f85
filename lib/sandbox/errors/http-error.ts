import { problemHint } from "./problem-hints.js";
import { SandboxAgentError } from "./sandbox-agent-error.js";

/** RFC 7807 problem details from the server (`type` is `urn:sandbox-agent:error:<kind>`). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  [extension: string]: unknown;
}

/**
 * A non-2xx answer from the server, with its problem+json details when it sent them. The message
 * names the call, the status and the server's words, then what the client knows to add (which
 * agent, where to look, the way out; see `problemHint`).
 */
export class SandboxAgentHttpError extends SandboxAgentError {
  override name = "SandboxAgentHttpError";
  readonly status: number;
  readonly problem: Problem | undefined;
  /** The body when it was not JSON (plain text, HTML), capped. */
  readonly bodyText: string | undefined;
  readonly operation: string;

  constructor(
    operation: string,
    status: number,
    problem: Problem | undefined,
    bodyText: string | undefined,
    options?: { cause?: unknown },
  ) {
    const summary = problem?.detail ?? problem?.title ?? bodyText?.slice(0, 200);
    const hint = problemHint(status, problem?.type?.split(":").pop(), problem);
    super(`${operation} failed with HTTP ${status}${summary ? `: ${summary}` : ""}${hint ? `. ${hint}` : ""}`, options);
    this.operation = operation;
    this.status = status;
    this.problem = problem;
    this.bodyText = bodyText;
  }

  /** The error kind from the problem type, e.g. `token_invalid`, `session_not_found`. */
  get kind(): string | undefined {
    return this.problem?.type?.split(":").pop();
  }
}
