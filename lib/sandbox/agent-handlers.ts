// The agent's requests to the client (permission, file reads and writes) answered from the
// client's options, and the desk where permission requests wait for a person (`"ask"`).
import type { AcpClientHandlers, CreateElicitationParams, CreateElicitationResult } from "../acp-http/index.js";
import type { PermissionRequest } from "./events.js";
import type { SessionRecording } from "./persistence/session-recording.js";
import type { TranscriptNote } from "./transcript.js";
import type { InputReply, InputRequest, PermissionReply, SandboxAgentClientOptions } from "./types.js";

type PermissionNote = Extract<TranscriptNote, { kind: "permission-answered" }>;

/**
 * The client's callbacks as answers to the agent's requests. File access is installed only when
 * given, so the agent is told about it only then. Permission requests always get a handler: the
 * caller's, the desk's (`"ask"`, where it waits for `replyPermission`), or "cancelled" without one;
 * either way how the request ended is noted for the transcript (`SessionRecording.note`).
 */
export function agentHandlers(
  options: SandboxAgentClientOptions,
  desk: PermissionDesk,
  recording: SessionRecording,
): AcpClientHandlers {
  const { onPermissionRequest, onReadTextFile, onWriteTextFile } = options;
  const handlers: AcpClientHandlers = {};
  const decide = (request: PermissionRequest, signal: AbortSignal): PermissionReply | Promise<PermissionReply> => {
    if (onPermissionRequest === "ask") return desk.ask(request, signal);
    if (onPermissionRequest) return onPermissionRequest(request, { signal });
    return { outcome: "cancelled" };
  };
  handlers.requestPermission = async (params, context) => {
    const request = { sessionId: params.sessionId, toolCall: params.toolCall, options: params.options };
    const { sessionId } = params;
    const base = { kind: "permission-answered" as const, sessionId, toolCallId: params.toolCall.toolCallId };
    let reported = false;
    const report = (outcome: PermissionNote["outcome"], optionId?: string) => {
      if (reported) return;
      reported = true;
      recording.note({ ...base, outcome, ...(optionId !== undefined ? { optionId } : {}) });
    };
    // The signal's reason says who ended the request: a cancelled turn, or the agent (or the
    // connection) letting go.
    const aborted = () => {
      const cancelled = /cancelled/.test(String((context.signal.reason as Error)?.message));
      report(cancelled ? "cancelled" : "withdrawn");
    };
    context.signal.addEventListener("abort", aborted, { once: true });
    try {
      const reply = await decide(request, context.signal);
      if (reply.outcome === "selected") report("selected", reply.optionId);
      else report("cancelled");
      return { outcome: reply };
    } catch (error) {
      report("cancelled");
      throw error;
    } finally {
      context.signal.removeEventListener("abort", aborted);
    }
  };
  const { onInput } = options;
  if (onInput) {
    handlers.createElicitation = async (params, context) =>
      toAnswer(await onInput(toInputRequest(params), { signal: context.signal }));
  }
  if (onReadTextFile) handlers.readTextFile = async (params) => ({ content: await onReadTextFile(params) });
  if (onWriteTextFile) {
    handlers.writeTextFile = async (params) => {
      await onWriteTextFile(params);
      return {};
    };
  }
  return handlers;
}

/** The agent's question in this layer's words (no protocol names: `mode` is `kind`, a URL's id is `id`). */
function toInputRequest(params: CreateElicitationParams): InputRequest {
  const about = {
    message: params.message,
    ...(params.sessionId !== undefined ? { sessionId: params.sessionId } : {}),
    ...(typeof params.toolCallId === "string" ? { toolCallId: params.toolCallId } : {}),
  };
  if (params.mode === "url") return { ...about, kind: "url", url: params.url, id: params.elicitationId };
  return { ...about, kind: "form", schema: params.requestedSchema };
}

// Anything but a well-formed accept is a decline: a handler's slip never accepts on the user's behalf.
function toAnswer(reply: InputReply | undefined): CreateElicitationResult {
  if (reply?.action === "cancel") return { action: "cancel" };
  if (reply?.action !== "accept") return { action: "decline" };
  return reply.values === undefined ? { action: "accept" } : { action: "accept", content: reply.values };
}

/**
 * Permission requests waiting for a person (`onPermissionRequest: "ask"`): each stays open until
 * `reply` answers it (a UI's button, through `client.replyPermission`) or its signal aborts (the turn
 * was cancelled, the agent withdrew it, the connection closed). What is waiting shows in the session's
 * transcript as its `pendingPermission`.
 */
export class PermissionDesk {
  readonly #waiting = new Map<string, (reply: PermissionReply) => void>();

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionReply> {
    const key = keyOf(request.sessionId, request.toolCall.toolCallId);
    return new Promise<PermissionReply>((resolve) => {
      const done = (reply: PermissionReply) => {
        if (this.#waiting.get(key) === done) this.#waiting.delete(key);
        signal.removeEventListener("abort", abort);
        resolve(reply);
      };
      const abort = () => done({ outcome: "cancelled" });
      if (signal.aborted) return abort();
      this.#waiting.set(key, done);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  /** Answers the request about `toolCallId` in `sessionId`; false when none is waiting. */
  reply(sessionId: string, toolCallId: string, reply: PermissionReply): boolean {
    const done = this.#waiting.get(keyOf(sessionId, toolCallId));
    if (!done) return false;
    done(reply);
    return true;
  }
}

function keyOf(sessionId: string, toolCallId: string): string {
  return JSON.stringify([sessionId, toolCallId]);
}
