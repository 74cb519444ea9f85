// The transcript of a session as a reduction of its events: an ordered list of entries, each with a
// stable id and a kind, plus what a UI derives from them (running, pending permission, mode, model,
// usage). Framework-free: `toTranscript()` turns any stream of session events (a view's `events$`, a
// stored `history$()`, a test's array) into immutable snapshots.
//
// Cost: a snapshot shares everything with the one before it except the entry that changed. Entries
// sit in a persistent vector (`lib/internal/persistent-vector.ts`, a 32-way trie), so replacing or
// appending one copies one path of the trie, never the list. Message and thought text is a rope of
// chunks appended in place (each snapshot knows how many chunks it sees) and joined only when read,
// once per entry version; a message another entry follows is compacted to one string per text run.
//
// The files, in the order a reader meets them: `model.ts` (the public types), `message.ts` (a
// message entry and its rope), `snapshot.ts` (one state), `stored.ts` (the client's answers in the
// stored history, the stamps naming a recorded chunk's message, and a stored envelope read back),
// `builder.ts` (the reduction), `summary.ts` (`groupEntries`), `operator.ts` (`toTranscript`,
// `transcriptOf`). This entry is what the rest of the sandbox layer imports.
export type {
  CompactionEntry,
  ContentBlock,
  FileChange,
  InputEntry,
  MessageEntry,
  NoticeEntry,
  PermissionEntry,
  PlanTranscriptEntry,
  TerminalEntry,
  TokenUsage,
  ToolCallEntry,
  ToolDiff,
  Transcript,
  TranscriptBlock,
  TranscriptEntry,
  TranscriptEntryKind,
  TranscriptNote,
  TranscriptOptions,
  TranscriptSource,
} from "./model.js";
export { TranscriptBuilder } from "./builder.js";
export { inputAnswerPayload, MessageStamps, permissionAnswerPayload, readStored, usageOf } from "./stored.js";
export { groupEntries, type ActivitySummary, type TranscriptGroup } from "./summary.js";
export { mergeToTranscript, toTranscript, transcriptOf, type DirectSource } from "./operator.js";
