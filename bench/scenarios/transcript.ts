// Scenario 10: the transcript model's cost. A 100,000-update turn (message and thought chunks, tool
// calls with their updates, plan updates) as the wire's JSON lines, delivered the way the client
// delivers them to `session(id).events$` (JSON.parse, envelope → typed event with the update schema,
// Subject, the session filter) and the same through `toTranscript()` on top of that. SSE framing and
// the network are left out of both, so the ratio is the model's own cost against the cheapest part
// of a delivery. Heap: the final snapshot held, after full collections, against the text it holds.
import { Subject } from "rxjs";
import { forSession, toTranscript, type MessageEntry, type SandboxEvent, type Transcript } from "../../lib/sandbox/index.js";
import { envelopeToEvent } from "../../lib/sandbox/events/events.js";
import { collect, memoryAfterGc, Stopwatch } from "../support/measure.js";

const SESSION = "bench-session";
const WORDS = ["the ", "build ", "fails ", "because ", "a ", "test ", "expects ", "greeting ", "text ", "here; "];

export interface TranscriptTurn {
  lines: string[];
  /** Characters of message and thought text in the turn. */
  textChars: number;
}

/**
 * The turn, deterministic: in every 100 updates, 50 message chunks, 15 thought chunks, 30 tool
 * updates (a new tool call every 10, each then updated with status and content), 5 plan updates.
 */
export function transcriptTurn(updates: number, textOnly = false): TranscriptTurn {
  const lines: string[] = [];
  let textChars = 0;
  let tool = 0;
  const line = (update: Record<string, unknown>) =>
    lines.push(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: SESSION, update } }));
  for (let i = 0; i < updates; i++) {
    // Text only: every update a message chunk, a new message every 100 (as if tools came between).
    const phase = textOnly ? 0 : i % 100;
    if (phase < 65) {
      const text = WORDS[i % WORDS.length]! + WORDS[(i * 7) % WORDS.length]!;
      textChars += text.length;
      const kind = phase < 50 ? "agent_message_chunk" : "agent_thought_chunk";
      line({ sessionUpdate: kind, content: { type: "text", text }, ...(textOnly ? { messageId: `m${Math.floor(i / 100)}` } : {}) });
    } else if (phase < 95) {
      if (phase % 10 === 5) {
        tool++;
        line({ sessionUpdate: "tool_call", toolCallId: `tool-${tool}`, title: `Edit file ${tool}`, kind: "edit", status: "pending", rawInput: { path: `src/f${tool}.ts` } });
      } else {
        const done = phase % 10 === 4;
        line({
          sessionUpdate: "tool_call_update",
          toolCallId: `tool-${tool}`,
          status: done ? "completed" : "in_progress",
          ...(done ? { content: [{ type: "diff", path: `src/f${tool}.ts`, oldText: "a", newText: "b" }] } : {}),
        });
      }
    } else {
      line({
        sessionUpdate: "plan",
        entries: [1, 2, 3, 4, 5].map((n) => ({ content: `step ${n}`, priority: "medium", status: n <= phase - 94 ? "completed" : "pending" })),
      });
    }
  }
  return { lines, textChars };
}

export interface TranscriptRun {
  cpuMs: number;
  wallMs: number;
}

/** Delivers every line through events$ (the baseline) or through events$ and toTranscript(). */
export function deliver(turn: TranscriptTurn, withTranscript: boolean, keep?: (t: Transcript) => void): TranscriptRun {
  const events = new Subject<SandboxEvent>();
  const view = events.pipe(forSession(SESSION));
  let seen = 0;
  let last: Transcript | undefined;
  const subscription = withTranscript
    ? view.pipe(toTranscript()).subscribe((t) => {
      last = t;
      seen += t.size; // a consumer that looks at each snapshot
    })
    : view.subscribe((event) => {
      if (event.kind === "update") seen++;
    });
  collect();
  const watch = new Stopwatch();
  for (const text of turn.lines) {
    const event = envelopeToEvent(JSON.parse(text) as Parameters<typeof envelopeToEvent>[0]);
    if (event) events.next(event);
  }
  const sample = watch.read();
  subscription.unsubscribe();
  if (seen === 0) throw new Error("nothing was delivered");
  if (last && keep) keep(last);
  return sample;
}

export interface TranscriptHeap {
  /** Heap held by the final snapshot, in bytes. */
  heapBytes: number;
  entries: number;
  textChars: number;
}

/** The heap the final snapshot holds (measured with the turn's lines already in memory). */
export function transcriptHeap(turn: TranscriptTurn): TranscriptHeap {
  // A first delivery of a turn leaves the heap smaller than before it (measured: 2–4.5 MB less after
  // full collections), so the measured one is the second.
  deliver(turn, true);
  const before = memoryAfterGc().heapUsed;
  let held: Transcript | undefined;
  deliver(turn, true, (t) => (held = t));
  const after = memoryAfterGc().heapUsed;
  const t = held as Transcript;
  // Read the text so the check below is real, then keep the snapshot alive up to here.
  let chars = 0;
  for (let i = 0; i < t.size; i++) {
    const entry = t.at(i);
    if (entry?.kind === "agent-message" || entry?.kind === "thought") chars += (entry as MessageEntry).chunks;
  }
  if (chars === 0) throw new Error("the transcript holds no text");
  return { heapBytes: after - before, entries: t.size, textChars: turn.textChars };
}
