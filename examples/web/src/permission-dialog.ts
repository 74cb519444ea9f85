// The permission dialog: the SDK calls onPermissionRequest(request, { signal }) and waits for the
// promise; the dialog closes itself when the signal aborts (turn cancelled, request withdrawn,
// connection closed), since nobody is waiting for that answer any more.
import type { PermissionContext, PermissionReply, PermissionRequest } from "sandbox-agent-rx";
import { byId, h } from "./dom.js";

const TONE: Record<string, string> = {
  allow_once: "primary", allow_always: "", reject_once: "danger", reject_always: "danger",
};

/** Shows one request at a time; requests that arrive meanwhile wait their turn. */
export function permissionHandler(): (
  request: PermissionRequest,
  context: PermissionContext,
) => Promise<PermissionReply> {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, context) => {
    const answer = queue.then(() => ask(request, context.signal));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

function ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionReply> {
  const dialog = byId<HTMLDialogElement>("permission");
  if (signal.aborted) return Promise.resolve({ outcome: "cancelled" });
  return new Promise((resolve) => {
    const finish = (reply: PermissionReply): void => {
      signal.removeEventListener("abort", onAbort);
      dialog.removeEventListener("keydown", onEscape);
      dialog.close();
      resolve(reply);
    };
    const onAbort = (): void => finish({ outcome: "cancelled" });
    const onEscape = (event: KeyboardEvent): void => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      finish({ outcome: "cancelled" });
    };
    const tool = request.toolCall;
    const buttons = request.options.map((option) =>
      h("button", {
        type: "button",
        class: TONE[option.kind] ?? "",
        "data-kind": option.kind,
        onclick: () => finish({ outcome: "selected", optionId: option.optionId }),
      }, option.name),
    );
    dialog.replaceChildren(
      h("div", { class: "dialog-head" }, "The agent asks for permission"),
      h("p", { class: "dialog-title", id: "permission-title" }, tool.title ?? tool.toolCallId),
      h("p", { class: "muted" }, tool.kind ? `Tool kind: ${tool.kind}` : ""),
      h("div", { class: "dialog-actions" }, ...buttons),
    );
    signal.addEventListener("abort", onAbort, { once: true });
    dialog.addEventListener("keydown", onEscape);
    // Not modal: the Cancel button of the turn stays usable while the agent waits.
    dialog.show();
    dialog.querySelector<HTMLButtonElement>("button")?.focus();
  });
}
