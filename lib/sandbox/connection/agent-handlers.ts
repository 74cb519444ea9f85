// The agent's requests to the client (permission, questions, file reads and writes) answered from
// the client's options, and the desks where permissions and questions wait for a person (`"ask"`).
import type { AcpClientHandlers, CreateElicitationParams, CreateElicitationResult } from "../../acp-http/index.js";
import { inputRequestOf, type PermissionRequest } from "../events/events.js";
import type { TranscriptNote } from "../transcript/index.js";
import type { InputReply, PermissionReply, SandboxAgentClientOptions } from "../types.js";

type PermissionNote = Extract<TranscriptNote, { kind: "permission-answered" }>;

/** Where how a request ended is noted for the transcript: the store's recording (`SessionRecording`). */
export interface TranscriptNotes {
  note(note: TranscriptNote): void;
}

/**
 * The client's callbacks as answers to the agent's requests. File access is installed only when
 * given, so the agent is told about it only then. Permission requests always get a handler: the
 * caller's, the desk's (`"ask"`, where it waits for `replyPermission`), or "cancelled" without one;
 * either way how the request ended is noted for the transcript (`SessionRecording.note`).
 */
export function agentHandlers(
  options: SandboxAgentClientOptions,
  desk: PermissionDesk,
  recording: TranscriptNotes,
  questions: InputDesk = inputDesk(),
): AcpClientHandlers {
  const { onPermissionRequest, onReadTextFile, onWriteTextFile } = options;
  const handlers: AcpClientHandlers = {};
  const decide = (request: PermissionRequest, signal: AbortSignal): PermissionReply | Promise<PermissionReply> => {
    if (onPermissionRequest === "ask") return desk.ask(request.sessionId, request.toolCall.toolCallId, signal);
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
    handlers.createElicitation = async (params, context) => {
      const request = inputRequestOf(params);
      if (!request) return { action: "decline" };
      const sessionId = request.sessionId;
      const requestId = String(context.id);
      let reported = false;
      const report = (action: "accept" | "decline" | "cancel" | "withdrawn") => {
        if (reported || sessionId === undefined) return;
        reported = true;
        recording.note({ kind: "input-answered", sessionId, requestId, action });
      };
      // As for permissions: a cancelled turn answers `cancel`, anything else let go of it.
      const aborted = () => {
        report(/cancelled/.test(String((context.signal.reason as Error)?.message)) ? "cancel" : "withdrawn");
      };
      context.signal.addEventListener("abort", aborted, { once: true });
      try {
        const reply = onInput === "ask"
          ? await questions.ask(sessionId ?? "", requestId, context.signal)
          : await onInput(request, { signal: context.signal });
        const answer = toAnswer(reply);
        report(answer.action);
        return answer;
      } catch (error) {
        report("cancel");
        throw error;
      } finally {
        context.signal.removeEventListener("abort", aborted);
      }
    };
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

// Anything but a well-formed accept is a decline: a handler's slip never accepts on the user's behalf.
function toAnswer(reply: InputReply | undefined): CreateElicitationResult {
  if (reply?.action === "cancel") return { action: "cancel" };
  if (reply?.action !== "accept") return { action: "decline" };
  return reply.values === undefined ? { action: "accept" } : { action: "accept", content: reply.values };
}

/**
 * The agent's requests waiting for a person (`onPermissionRequest: "ask"`, `onInput: "ask"`): each
 * stays open until `reply` answers it (a UI's button, through `client.replyPermission` or
 * `client.replyInput`) or its signal aborts (the turn was cancelled, the agent withdrew it, the
 * connection closed), which answers it `aborted`. What is waiting shows in the session's transcript
 * (`pendingPermission`, `pendingInput`).
 */
class ReplyDesk<Reply> {
  readonly #waiting = new Map<string, (reply: Reply) => void>();

  constructor(readonly aborted: Reply) {}

  /** Waits for the answer to request `id` (a tool call id, a question's request id) of `sessionId`. */
  ask(sessionId: string, id: string, signal: AbortSignal): Promise<Reply> {
    const key = keyOf(sessionId, id);
    return new Promise<Reply>((resolve) => {
      const done = (reply: Reply) => {
        if (this.#waiting.get(key) === done) this.#waiting.delete(key);
        signal.removeEventListener("abort", abort);
        resolve(reply);
      };
      const abort = () => done(this.aborted);
      if (signal.aborted) return abort();
      this.#waiting.set(key, done);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  /** Answers request `id` of `sessionId`; false when none is waiting. */
  reply(sessionId: string, id: string, reply: Reply): boolean {
    const done = this.#waiting.get(keyOf(sessionId, id));
    if (!done) return false;
    done(reply);
    return true;
  }
}

/** Permission requests waiting for a person; an aborted one is answered `cancelled`. */
export type PermissionDesk = ReplyDesk<PermissionReply>;
export const permissionDesk = (): PermissionDesk => new ReplyDesk<PermissionReply>({ outcome: "cancelled" });

/** The agent's questions waiting for a person; an aborted one is answered `cancel`. */
export type InputDesk = ReplyDesk<InputReply>;
export const inputDesk = (): InputDesk => new ReplyDesk<InputReply>({ action: "cancel" });

function keyOf(sessionId: string, toolCallId: string): string {
  return JSON.stringify([sessionId, toolCallId]);
}
