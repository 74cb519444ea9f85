// The server's output (its log lines on stderr when SANDBOX_AGENT_LOG_STDOUT is set): kept as a
// bounded tail for error messages, and passed on to a stream only when the user asks for one.

/**
 * Where the server's log lines go: any writable stream (`process.stderr`, a `PassThrough`) fits.
 * Structural on purpose, so the emitted declarations need no Node types.
 */
export interface LogSink {
  write(chunk: string): unknown;
}

/**
 * What `follow` reads of a child's stdout or stderr (a Node `Readable`). Structural for the same
 * reason: `LogSink` is public (`local({ log })`), so this file's declarations reach a consumer's
 * type check, which may have no `@types/node`.
 */
interface TextStream {
  setEncoding(encoding: "utf8"): unknown;
  on(event: "data", listener: (chunk: string) => void): unknown;
  once(event: "end" | "close" | "error", listener: () => void): unknown;
}

const MAX_LINES = 60;
const MAX_LINE_CHARS = 2000;

export class OutputTail {
  readonly #lines: string[] = [];
  readonly #redact: string[];
  readonly #sink: LogSink | undefined;
  readonly #prefix: string;
  /** How long an unfinished line may grow before it is cut: enough to redact a secret that starts before the cut. */
  readonly #holdChars: number;
  #partial = "";
  /** The rest of a line already cut is dropped up to its newline. */
  #skipping = false;
  #listeners: ((line: string) => void)[] = [];
  readonly #ends: Promise<void>[] = [];

  /** `redact`: secrets (the token) replaced in every line kept or passed on. */
  constructor(options: { redact?: (string | undefined)[]; sink?: LogSink | undefined; prefix?: string }) {
    this.#redact = (options.redact ?? []).filter((s): s is string => typeof s === "string" && s.length > 0);
    this.#sink = options.sink;
    this.#prefix = options.prefix ?? "";
    this.#holdChars = MAX_LINE_CHARS + Math.max(0, ...this.#redact.map((secret) => secret.length));
  }

  /** Reads `stream` line by line until it ends. */
  follow(stream: TextStream | null | undefined): void {
    if (!stream) return;
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => this.#push(chunk));
    this.#ends.push(
      new Promise((resolve) => {
        stream.once("end", () => {
          this.#flush();
          resolve();
        });
        stream.once("close", () => resolve());
        stream.once("error", () => resolve());
      }),
    );
  }

  /**
   * Settles once every followed stream has ended. A process's `exit` can come before the last of its
   * output has been read: wait for this (bounded) before reporting that output.
   */
  ended(): Promise<void> {
    return Promise.all(this.#ends).then(() => undefined);
  }

  /** Calls `listener` for each later line. */
  onLine(listener: (line: string) => void): () => void {
    this.#listeners.push(listener);
    return () => (this.#listeners = this.#listeners.filter((l) => l !== listener));
  }

  /** The last lines seen, newest last. */
  text(): string {
    return [...this.#lines, ...(this.#partial ? [this.#partial] : [])].map((l) => this.#clean(l)).join("\n");
  }

  #push(chunk: string): void {
    let text = chunk;
    if (this.#skipping) {
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      text = text.slice(newline + 1);
      this.#skipping = false;
    }
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const line of parts) this.#line(line.replace(/\r$/, ""));
    // An endless line must not grow without bound: keep its head, cut (after redaction) like any long line.
    // Cut it as one line, not piece by piece: a piece could begin inside a secret and show its end.
    if (this.#partial.length > this.#holdChars) {
      this.#line(this.#partial);
      this.#partial = "";
      this.#skipping = true;
    }
  }

  #flush(): void {
    if (this.#partial) this.#line(this.#partial);
    this.#partial = "";
  }

  #line(raw: string): void {
    const line = this.#clean(raw);
    this.#lines.push(line);
    if (this.#lines.length > MAX_LINES) this.#lines.shift();
    this.#sink?.write(`${this.#prefix}${line}\n`);
    for (const listener of this.#listeners) listener(line);
  }

  /** Redacts, then cuts: cut first, a secret across the cut would keep its head. */
  #clean(line: string): string {
    let out = line;
    for (const secret of this.#redact) out = out.split(secret).join("[redacted]");
    return out.length > MAX_LINE_CHARS ? `${out.slice(0, MAX_LINE_CHARS)}…` : out;
  }
}
