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

/** How much of the server's own account (an installer's stderr) a message quotes. */
const QUOTE_CHARS = 300;

/**
 * What the client can add to a server's problem that the server's bare words leave out ("install
 * failed: claude"): which agent, the server's reason where it sent one, and the way out. Undefined
 * for problems whose detail already says enough.
 */
export function problemHint(status: number, kind: string | undefined, problem: Problem | undefined): string | undefined {
  const agent = typeof problem?.agent === "string" ? problem.agent : undefined;
  switch (kind) {
    case "install_failed": {
      const stderr = (problem?.details as { stderr?: unknown } | undefined)?.stderr;
      const reason = typeof stderr === "string" && stderr.trim() ? `: ${quote(stderr)}` : "";
      return (
        `The server could not install agent "${agent ?? "?"}"${reason}. Installing downloads the agent, so the ` +
        "server needs network access (and the agent its API key to run); the server's log has the details"
      );
    }
    case "agent_not_installed":
      return `The server runs only agents installed beforehand: install it first with installAgent("${agent ?? "?"}")`;
    case "unsupported_agent":
      return "listAgents() lists the agents this server knows";
    case "token_invalid":
      return "Pass the server's token (its --token) in the token option";
  }
  if (status === 401) return "Pass the server's token (its --token) in the token option";
  if (status === 403) return "The token option's token is not allowed this call";
  return undefined;
}

function quote(text: string): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS - 3)}...` : line;
}
