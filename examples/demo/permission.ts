// Answers the agent's permission requests: from the keyboard (one key, y or n) when stdin is a
// terminal, otherwise automatically, because a piped or closed stdin can never answer.
import type { PermissionReply, PermissionRequest } from "../../lib/sandbox/index.js";

export type Decision = "allow" | "reject";

/** Turns a decision into the reply the agent expects, using the options it offered. */
export function replyFor(request: PermissionRequest, decision: Decision): PermissionReply {
  const wanted = decision === "allow" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  const option = wanted.map((kind) => request.options.find((o) => o.kind === kind)).find((o) => o !== undefined);
  // No matching option: "cancelled" is the protocol's neutral answer, which agents treat as "no".
  return option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" };
}

export interface KeyInput {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/**
 * Waits for y/n (Enter counts as no, to make the safe answer the easy one). Raw mode turns off the
 * terminal's own Ctrl-C handling, so Ctrl-C is passed to `onInterrupt` instead.
 */
export function askKey(input: KeyInput, onInterrupt: () => void): Promise<Decision> {
  return new Promise((resolve) => {
    const listener = (chunk: Buffer | string): void => {
      const key = chunk.toString().toLowerCase();
      if (key === "\u0003") {
        done();
        onInterrupt();
      } else if (key === "y") {
        done();
        resolve("allow");
      } else if (key === "n" || key === "\r" || key === "\n" || key === "\u001b") {
        done();
        resolve("reject");
      }
    };
    const done = (): void => {
      input.off("data", listener);
      input.setRawMode?.(false);
      input.pause();
    };
    input.setRawMode?.(true);
    input.resume();
    input.on("data", listener);
  });
}
