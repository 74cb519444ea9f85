// Answers the agent's permission requests from stdin, one line per answer: y/yes or n/no in any
// case, Enter alone for no. Lines, not keys, so that an answer typed fast or pasted ("n" and Enter
// in one chunk) and one piped in (`echo y | npm start`) read the same as one typed slowly. When stdin
// ends without an answer (no terminal, nothing piped), the request is rejected: an agent never gets
// an approval nobody gave.
import { createInterface, type Interface } from "node:readline";
import type { PermissionReply, PermissionRequest } from "sandbox-agent-rx";

export type Decision = "allow" | "reject";

/** Turns a decision into the reply the agent expects, using the options it offered. */
export function replyFor(request: PermissionRequest, decision: Decision): PermissionReply {
  const wanted = decision === "allow" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  const option = wanted.map((kind) => request.options.find((o) => o.kind === kind)).find((o) => o !== undefined);
  // No matching option: "cancelled" is the protocol's neutral answer, which agents treat as "no".
  return option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" };
}

/** y/yes → allow, n/no or an empty line → reject (the safe answer is the easy one), else undefined. */
export function parseAnswer(line: string): Decision | undefined {
  const answer = line.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return "allow";
  if (answer === "" || answer === "n" || answer === "no") return "reject";
  return undefined;
}

/** Where answers come from: the next line, or null once the input has ended or `signal` aborted. */
export interface LineSource {
  next(signal?: AbortSignal): Promise<string | null>;
}

/**
 * The lines of a stream, queued as they arrive, so that lines arriving before the question (or
 * several in one chunk) are kept for the next questions. `terminal: false` leaves a terminal in its
 * own line mode: it echoes and edits the line, and Ctrl-C stays a SIGINT to the process.
 */
export class StreamLines implements LineSource {
  readonly #lines: string[] = [];
  readonly #waiting = new Set<(line: string | null) => void>();
  readonly #reader: Interface;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.#reader = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#reader.on("line", (line) => {
      const [first] = this.#waiting;
      if (first) {
        this.#waiting.delete(first);
        first(line);
      } else {
        this.#lines.push(line);
      }
    });
    this.#reader.on("close", () => {
      this.#ended = true;
      for (const resolve of this.#waiting) resolve(null);
      this.#waiting.clear();
    });
  }

  next(signal?: AbortSignal): Promise<string | null> {
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const settle = (line: string | null) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      const onAbort = () => {
        this.#waiting.delete(settle);
        resolve(null);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.add(settle);
    });
  }

  /** Stops reading, so that stdin no longer keeps the process alive. */
  close(): void {
    this.#reader.close();
  }
}

export type Answer = { decision: Decision; line: string } | { decision: "reject"; line: null };

/**
 * Reads lines until one is an answer, asking again (`reprompt`) after any other; `line: null` when the
 * input ended or `signal` aborted first, which is a rejection.
 */
export async function askPermission(
  lines: LineSource,
  reprompt: () => void,
  signal?: AbortSignal,
): Promise<Answer> {
  for (;;) {
    const line = await lines.next(signal);
    if (line === null) return { decision: "reject", line: null };
    const decision = parseAnswer(line);
    if (decision) return { decision, line: line.trim() };
    reprompt();
  }
}
