// Entries for display: `groupEntries` sets each message on its own and folds every run of other
// entries between two messages into one `activity` group with a one-line summary (what a
// collapsible "3 tool calls, 1 thought" row shows). It reads a snapshot's entries and builds nothing
// the snapshot keeps, so a UI calls it on each snapshot it renders.
import type { MessageEntry, TranscriptEntry } from "./model.js";

/** What a run of activity between messages amounts to (a collapsed group's one-line summary). */
export interface ActivitySummary {
  toolCalls: number;
  running: number;
  failed: number;
  thoughts: number;
  /** Other entries in the run: plans, permissions, mode changes, notices. */
  other: number;
  /** E.g. "3 tool calls (1 running), 1 thought". */
  text: string;
}

/** A message on its own, or a run of other entries between two messages with its summary (see `groupEntries`). */
export type TranscriptGroup =
  | { kind: "message"; id: string; entry: MessageEntry }
  | { kind: "activity"; id: string; entries: readonly TranscriptEntry[]; summary: ActivitySummary };

/**
 * Entries for display: each message on its own, every run of other entries between two messages as
 * one `activity` group with a summary (what a collapsible "N tool calls" row shows). A group's id is
 * its first entry's, so it is stable while the run grows. Consecutive calls with an unchanged run
 * return groups whose `entries` hold the same entry objects.
 */
export function groupEntries(entries: readonly TranscriptEntry[]): TranscriptGroup[] {
  const groups: TranscriptGroup[] = [];
  let run: TranscriptEntry[] = [];
  const flush = () => {
    if (run.length > 0) groups.push({ kind: "activity", id: run[0]!.id, entries: run, summary: summarise(run) });
    run = [];
  };
  for (const entry of entries) {
    if (entry.kind === "user-message" || entry.kind === "agent-message") {
      flush();
      groups.push({ kind: "message", id: entry.id, entry });
    } else run.push(entry);
  }
  flush();
  return groups;
}

function summarise(run: readonly TranscriptEntry[]): ActivitySummary {
  let toolCalls = 0;
  let running = 0;
  let failed = 0;
  let thoughts = 0;
  for (const entry of run) {
    if (entry.kind === "thought") thoughts++;
    if (entry.kind !== "tool-call") continue;
    toolCalls++;
    if (entry.status === "failed") failed++;
    // Not ended: the builder sets `endedAt` when the call reaches a status that ends it (in v1 or v2 terms).
    else if (entry.endedAt === undefined) running++;
  }
  const other = run.length - toolCalls - thoughts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const states = [running ? `${running} running` : "", failed ? `${failed} failed` : ""].filter(Boolean).join(", ");
  const parts = [
    toolCalls ? `${plural(toolCalls, "tool call")}${states ? ` (${states})` : ""}` : "",
    thoughts ? plural(thoughts, "thought") : "",
    other ? plural(other, "other event") : "",
  ].filter(Boolean);
  return { toolCalls, running, failed, thoughts, other, text: parts.join(", ") };
}
