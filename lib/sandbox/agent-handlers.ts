// The agent's requests to the client (permission, questions, file reads and writes) answered from
// the client's options, and the desks where permissions and questions wait for a person (`"ask"`).
import type { AcpClientHandlers, CreateElicitationParams, CreateElicitationResult } from "../acp-http/index.js";
import { inputRequestOf, type PermissionRequest } from "./events.js";
import type { SessionRecording } from "./persistence/session-recording.js";
import type { TranscriptNote } from "./transcript.js";
import type { InputReply, PermissionReply, SandboxAgentClientOptions } from "./types.js";

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
  questions: InputDesk = new InputDesk(),
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

/**
 * The agent's questions waiting for a person (`onInput: "ask"`): each stays open until `reply`
 * answers it (through `client.replyInput`) or its signal aborts (then `cancel`). What is waiting
 * shows in the session's transcript as its `pendingInput`.
 */
export class InputDesk {
  readonly #waiting = new Map<string, (reply: InputReply) => void>();

  ask(sessionId: string, requestId: string, signal: AbortSignal): Promise<InputReply> {
    const key = keyOf(sessionId, requestId);
    return new Promise<InputReply>((resolve) => {
      const done = (reply: InputReply) => {
        if (this.#waiting.get(key) === done) this.#waiting.delete(key);
        signal.removeEventListener("abort", abort);
        resolve(reply);
      };
      const abort = () => done({ action: "cancel" });
      if (signal.aborted) return abort();
      this.#waiting.set(key, done);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  /** Answers the question `requestId` of `sessionId`; false when none is waiting. */
  reply(sessionId: string, requestId: string, reply: InputReply): boolean {
    const done = this.#waiting.get(keyOf(sessionId, requestId));
    if (!done) return false;
    done(reply);
    return true;
  }
}

function keyOf(sessionId: string, toolCallId: string): string {
  return JSON.stringify([sessionId, toolCallId]);
}
