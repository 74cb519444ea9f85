import type { AcpClientHandlers } from "../acp-http/index.js";
import type { PermissionRequest } from "./events.js";
import type { SessionRecording } from "./persistence/session-recording.js";
import type { PermissionDesk } from "./permission-desk.js";
import type { TranscriptNote } from "./transcript.js";
import type { PermissionReply, SandboxAgentClientOptions } from "./types.js";

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
  if (onReadTextFile) handlers.readTextFile = async (params) => ({ content: await onReadTextFile(params) });
  if (onWriteTextFile) {
    handlers.writeTextFile = async (params) => {
      await onWriteTextFile(params);
      return {};
    };
  }
  return handlers;
}
