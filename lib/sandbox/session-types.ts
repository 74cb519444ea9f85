import * as v from "valibot";
import { SessionInfoSchema } from "../acp-http/index.js";
import type { SessionMetadata, SessionRuntimeInfo } from "./metadata.js";

/** What the session methods take and give back, and the wire shapes their results are checked against. */

/** Where a new (or loaded) session works, its MCP servers, and the metadata to store with it. */
export interface NewSessionOptions {
  cwd?: string;
  mcpServers?: Array<{ name: string; [key: string]: unknown }>;
  metadata?: SessionMetadata;
}

/** An open session: its id on the live connection, with what the agent answered when opening it. */
export interface SessionHandle {
  sessionId: string;
  /** Metadata the agent echoed back in the sandbox namespace, if any. */
  metadata: SessionMetadata;
  modes?: unknown;
  models?: unknown;
  configOptions?: unknown;
  /** Everything else the agent answered, untouched. */
  raw: Record<string, unknown>;
}

/** How a turn ended (`end_turn`, `cancelled`, `max_tokens`, ...), with the agent's whole answer. */
export interface PromptOutcome {
  stopReason: string;
  raw: Record<string, unknown>;
}

/** One session of `listSessions()`: the agent's fields with the server's runtime info and the stored metadata. */
export interface SessionListing extends SessionRuntimeInfo {
  sessionId: string;
  cwd?: string;
  title?: string | null;
  /** Caller-set metadata (title, variant, permissionMode, skills, ... as stored). */
  metadata: SessionMetadata;
}

export interface SessionList {
  sessions: SessionListing[];
  nextCursor: string | null;
}

export interface ModelInfo {
  modelId: string;
  name?: string | null;
  description?: string | null;
  [key: string]: unknown;
}

export interface ModelList {
  availableModels: ModelInfo[];
  currentModelId: string | null;
}

export interface TerminateResult {
  terminated: boolean;
  alreadyEnded: boolean;
  reason?: string;
  terminatedBy?: string;
}

export const NewSessionWireSchema = v.looseObject({ sessionId: v.string(), _meta: v.optional(v.unknown()) });
export const PromptWireSchema = v.looseObject({ stopReason: v.string() });
export const ListWireSchema = v.looseObject({
  sessions: v.array(SessionInfoSchema),
  nextCursor: v.optional(v.nullable(v.string())),
});
export const ModelsWireSchema = v.looseObject({
  availableModels: v.array(
    v.looseObject({
      modelId: v.optional(v.string()),
      id: v.optional(v.string()),
      name: v.optional(v.nullable(v.string())),
    }),
  ),
  currentModelId: v.optional(v.nullable(v.string())),
});
export const TerminateWireSchema = v.looseObject({
  terminated: v.boolean(),
  alreadyEnded: v.optional(v.boolean()),
  reason: v.optional(v.string()),
  terminatedBy: v.optional(v.string()),
});

/** One block of a prompt: `{ type: "text", text }`, or any other content type the agent accepts. */
export interface PromptBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A prompt: plain text, or ACP content blocks (text, images, resources). */
export type PromptInput = string | PromptBlock[];
