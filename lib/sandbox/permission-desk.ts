import type { PermissionRequest } from "./events.js";
import type { PermissionReply } from "./types.js";

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
