import type { AcpClientHandlers } from "../acp-http/index.js";
import type { SandboxAgentClientOptions } from "./types.js";

/**
 * The client's callbacks as answers to the agent's requests. Only the ones given are
 * installed: the agent is told about file access only when the client offers it.
 */
export function agentHandlers(options: SandboxAgentClientOptions): AcpClientHandlers {
  const { onPermissionRequest, onReadTextFile, onWriteTextFile } = options;
  const handlers: AcpClientHandlers = {};
  if (onPermissionRequest) {
    handlers.requestPermission = async (params, context) => {
      const request = { sessionId: params.sessionId, toolCall: params.toolCall, options: params.options };
      return { outcome: await onPermissionRequest(request, { signal: context.signal }) };
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
