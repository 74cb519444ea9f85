// Renders a session's events in a terminal: text streams in place, thoughts are dimmed, the plan is
// a checklist, tool calls carry a status icon, and a spinner runs while the turn is busy. ANSI
// escapes are only written to a TTY, so piped output (and the tests) read as plain text.
import type { PlanEntry, SandboxEvent, SessionListing, SessionUpdate } from "sandbox-agent-rx";

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

type Style = (text: string) => string;

function styles(ansi: boolean): Record<"dim" | "bold" | "green" | "red" | "yellow" | "cyan", Style> {
  const wrap = (open: number, close: number): Style => (ansi ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text);
  return { dim: wrap(2, 22), bold: wrap(1, 22), green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TOOL_PREVIEW_LINES = 6;

type Block = "none" | "thought" | "message";

export class TerminalRenderer {
  readonly #out: Output;
  readonly #ansi: boolean;
  readonly #s: ReturnType<typeof styles>;
  #block: Block = "none";
  #atLineStart = true;
  #spinnerTimer: ReturnType<typeof setInterval> | undefined;
  #spinnerFrame = 0;
  #spinnerShown = false;
  #spinnerLabel = "";
  #lastPlan = "";
  readonly #toolTitles = new Map<string, string>();

  constructor(out: Output) {
    this.#out = out;
    this.#ansi = out.isTTY === true;
    this.#s = styles(this.#ansi);
  }

  get style(): ReturnType<typeof styles> {
    return this.#s;
  }

  /** A whole line of its own, after whatever was streaming. */
  line(text = ""): void {
    this.#endBlock();
    this.#write(`${text}\n`);
  }

  handle(event: SandboxEvent): void {
    switch (event.kind) {
      case "update":
        this.#update(event.update);
        break;
      case "unknown-update":
        this.line(this.#s.dim(`(update ${event.update.sessionUpdate})`));
        break;
      case "session-ended":
        this.line(this.#s.yellow(`Session ended: ${event.reason}${event.message ? ` (${event.message})` : ""}`));
        break;
      case "agent-exited":
        this.line(this.#s.yellow(`Agent exited with ${event.exitCode ?? "a signal"}`));
        break;
      case "parse-error":
        this.line(this.#s.red(`Unreadable ${event.source} output: ${event.error}`));
        break;
      case "events-lost":
        this.line(this.#s.red(`Events ${event.firstMissing}-${event.lastMissing} were lost`));
        break;
      // Permission requests are shown by whoever answers them; other notifications are noise here.
      case "permission-request":
      case "notification":
        break;
    }
  }

  /** Shows a spinner on its own line whenever nothing is streaming (TTY only). */
  startSpinner(label: string): void {
    this.#spinnerLabel = label;
    if (!this.#ansi || this.#spinnerTimer) return;
    this.#spinnerTimer = setInterval(() => this.#tick(), 80);
    // The spinner must never be what keeps the process alive.
    this.#spinnerTimer.unref();
  }

  stopSpinner(): void {
    if (this.#spinnerTimer) clearInterval(this.#spinnerTimer);
    this.#spinnerTimer = undefined;
    this.#clearSpinner();
  }

  stopReason(reason: string): void {
    this.stopSpinner();
    const text = `Stop reason: ${reason}`;
    this.line(reason === "end_turn" ? this.#s.green(text) : this.#s.yellow(text));
  }

  sessions(list: readonly SessionListing[]): void {
    this.line(this.#s.bold(`Sessions (${list.length})`));
    for (const session of list) {
      const details: string[] = [];
      if (session.title) details.push(`title: ${JSON.stringify(session.title)}`);
      if (session.cwd) details.push(`cwd: ${session.cwd}`);
      if (session.agent) details.push(`agent: ${session.agent}`);
      if (session.createdAt !== undefined) details.push(`created: ${new Date(session.createdAt).toISOString()}`);
      if (session.ended !== undefined) details.push(`ended: ${session.ended}`);
      this.line(`  ${this.#s.cyan(session.sessionId)}  ${details.join("  ")}`);
      if (Object.keys(session.metadata).length > 0) this.line(this.#s.dim(`    metadata: ${JSON.stringify(session.metadata)}`));
    }
  }

  #update(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case "agent_thought_chunk":
        this.#stream("thought", update.content.text ?? "");
        break;
      case "agent_message_chunk":
        this.#stream("message", update.content.text ?? "");
        break;
      case "plan":
        this.#plan(update.entries);
        break;
      case "tool_call":
        this.#toolTitles.set(update.toolCallId, update.title ?? update.toolCallId);
        this.#tool(update.toolCallId, update.status ?? "pending", update.kind ?? undefined);
        break;
      case "tool_call_update":
        if (update.title) this.#toolTitles.set(update.toolCallId, update.title);
        if (update.status) this.#tool(update.toolCallId, update.status, undefined, update.content ?? undefined);
        break;
      case "session_info_update":
        if (update.title) this.line(this.#s.dim(`Title: ${update.title}`));
        break;
      default:
        break;
    }
  }

  #stream(block: Exclude<Block, "none">, text: string): void {
    if (!text) return;
    if (this.#block !== block) {
      this.#endBlock();
      this.#write(block === "thought" ? this.#s.dim("Thinking: ") : "\n");
      this.#block = block;
    }
    this.#write(block === "thought" ? this.#s.dim(text) : text);
  }

  #plan(entries: readonly PlanEntry[]): void {
    const text = entries
      .map((entry) => {
        const box = entry.status === "completed" ? this.#s.green("[x]") : entry.status === "in_progress" ? this.#s.yellow("[~]") : "[ ]";
        return `  ${box} ${entry.status === "completed" ? this.#s.dim(entry.content) : entry.content}`;
      })
      .join("\n");
    if (text === this.#lastPlan) return;
    this.#lastPlan = text;
    this.line(this.#s.bold("Plan"));
    this.line(text);
  }

  #tool(toolCallId: string, status: string, kind?: string, content?: readonly unknown[]): void {
    const icon =
      status === "completed" ? this.#s.green("✓") : status === "failed" ? this.#s.red("✗") : status === "in_progress" ? this.#s.yellow("◐") : "○";
    const title = this.#toolTitles.get(toolCallId) ?? toolCallId;
    this.line(`${icon} Tool ${title} ${this.#s.dim(`[${kind ? `${kind}, ` : ""}${status}]`)}`);
    const preview = toolText(content).split("\n").filter(Boolean);
    for (const text of preview.slice(0, TOOL_PREVIEW_LINES)) this.line(this.#s.dim(`    │ ${text}`));
    if (preview.length > TOOL_PREVIEW_LINES) this.line(this.#s.dim(`    │ … ${preview.length - TOOL_PREVIEW_LINES} more lines`));
  }

  #endBlock(): void {
    if (!this.#atLineStart) this.#write("\n");
    if (this.#block === "thought") this.#write("\n");
    this.#block = "none";
  }

  #write(text: string): void {
    if (!text) return;
    this.#clearSpinner();
    this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  #tick(): void {
    // Mid-line means text is streaming: a spinner there would overwrite it.
    if (!this.#atLineStart) return;
    const frame = SPINNER[this.#spinnerFrame++ % SPINNER.length] ?? "";
    this.#out.write(`\r\x1b[K${this.#s.cyan(frame)} ${this.#s.dim(this.#spinnerLabel)}`);
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#out.write("\r\x1b[K");
    this.#spinnerShown = false;
  }
}

/** The text of ACP tool-call content items (`{type:"content", content:{type:"text", text}}` and diffs). */
function toolText(content: readonly unknown[] | undefined): string {
  const parts: string[] = [];
  for (const item of content ?? []) {
    if (typeof item !== "object" || item === null) continue;
    const inner = (item as { content?: unknown }).content;
    if (typeof inner === "object" && inner !== null && typeof (inner as { text?: unknown }).text === "string") {
      parts.push((inner as { text: string }).text);
    } else if (typeof (item as { newText?: unknown }).newText === "string") {
      parts.push((item as { newText: string }).newText);
    }
  }
  return parts.join("\n");
}
