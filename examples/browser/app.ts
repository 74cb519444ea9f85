// The browser page's logic: connect, stream a session into the page, and ask the user before the
// agent acts. Bundled for the browser by build.ts; `?server=URL&agent=NAME` prefills the form.
import { SandboxAgentClient, type PermissionReply, type PermissionRequest, type SandboxEvent } from "sandbox-agent-rx";
import type { Subscription } from "rxjs";

function element<T extends HTMLElement>(selector: string): T {
  const found = document.querySelector<T>(selector);
  if (!found) throw new Error(`missing element ${selector}`);
  return found;
}

const connectForm = element<HTMLFormElement>("#connect");
const promptForm = element<HTMLFormElement>("#prompt-form");
const promptInput = element<HTMLInputElement>("#prompt-form input[name=prompt]");
const sendButton = element<HTMLButtonElement>("#prompt-form button[type=submit]");
const cancelButton = element<HTMLButtonElement>("#cancel");
const status = element<HTMLParagraphElement>("#status");
const permissionBox = element<HTMLDivElement>("#permission");
const permissionTitle = element<HTMLElement>("#permission-title");
const plan = element<HTMLUListElement>("#plan");
const tools = element<HTMLUListElement>("#tools");
const thoughts = element<HTMLParagraphElement>("#thoughts");
const answer = element<HTMLDivElement>("#answer");
const stopReason = element<HTMLParagraphElement>("#stop-reason");

const params = new URLSearchParams(location.search);
for (const name of ["baseUrl", "agent"] as const) {
  const value = params.get(name === "baseUrl" ? "server" : name);
  const input = connectForm.elements.namedItem(name);
  if (value && input instanceof HTMLInputElement) input.value = value;
}

let client: SandboxAgentClient | undefined;
let sessionId: string | undefined;
let rendering: Subscription | undefined;

/** Shows Allow/Reject and resolves with the user's choice; the agent waits meanwhile. */
function askPermission(request: PermissionRequest): Promise<PermissionReply> {
  permissionTitle.textContent = request.toolCall.title ?? request.toolCall.toolCallId;
  permissionBox.hidden = false;
  return new Promise((resolve) => {
    const choose = (allow: boolean) => (): void => {
      permissionBox.hidden = true;
      allowButton.onclick = rejectButton.onclick = null;
      const kinds = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
      const option = request.options.find((o) => kinds.includes(o.kind));
      resolve(option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" });
    };
    const allowButton = element<HTMLButtonElement>("#allow");
    const rejectButton = element<HTMLButtonElement>("#reject");
    allowButton.onclick = choose(true);
    rejectButton.onclick = choose(false);
  });
}

function render(event: SandboxEvent): void {
  if (event.kind === "session-ended") status.textContent = `Session ended: ${event.reason}`;
  if (event.kind !== "update") return;
  const update = event.update;
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      // Text nodes, never innerHTML: the agent's output is untrusted.
      answer.append(update.content.text ?? "");
      break;
    case "agent_thought_chunk":
      thoughts.append(update.content.text ?? "");
      break;
    case "plan":
      plan.replaceChildren(
        ...update.entries.map((entry) => {
          const li = document.createElement("li");
          li.textContent = entry.content;
          li.className = entry.status ?? "pending";
          return li;
        }),
      );
      break;
    case "tool_call":
    case "tool_call_update": {
      let li = tools.querySelector<HTMLLIElement>(`li[data-id="${CSS.escape(update.toolCallId)}"]`);
      if (!li) {
        li = document.createElement("li");
        li.dataset.id = update.toolCallId;
        tools.append(li);
      }
      if (update.title) li.dataset.title = update.title;
      if (update.status) li.dataset.status = update.status;
      li.textContent = `${li.dataset.title ?? update.toolCallId} (${li.dataset.status ?? "pending"})`;
      break;
    }
    default:
      break;
  }
}

connectForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const data = new FormData(connectForm);
  const token = String(data.get("token") ?? "");
  rendering?.unsubscribe();
  void client?.disconnect();
  sessionId = undefined;
  client = new SandboxAgentClient({
    baseUrl: String(data.get("baseUrl")).replace(/\/+$/, ""),
    agent: String(data.get("agent")),
    ...(token ? { token } : {}),
    onPermissionRequest: askPermission,
  });
  const current = client;
  current.state$.subscribe((state) => {
    status.textContent = state === "connected" ? "Connected." : `State: ${state}`;
    promptInput.disabled = sendButton.disabled = state !== "connected";
  });
  current.ready.catch((error: unknown) => {
    status.textContent = `Could not connect: ${(error as Error).message}`;
    status.className = "error";
  });
});

promptForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const current = client;
  const text = promptInput.value.trim();
  if (!current || !text) return;
  void (async () => {
    sendButton.disabled = true;
    cancelButton.hidden = false;
    answer.textContent = thoughts.textContent = stopReason.textContent = "";
    plan.replaceChildren();
    tools.replaceChildren();
    try {
      if (sessionId === undefined) {
        sessionId = (await current.newSession({ metadata: { title: text.slice(0, 48) } })).sessionId;
        rendering = current.session(sessionId).events$.subscribe(render);
      }
      const outcome = await current.prompt(sessionId, text);
      stopReason.textContent = `Stop reason: ${outcome.stopReason}`;
    } catch (error) {
      stopReason.textContent = `Error: ${(error as Error).message}`;
      stopReason.className = "error";
    } finally {
      sendButton.disabled = false;
      cancelButton.hidden = true;
    }
  })();
});

cancelButton.addEventListener("click", () => {
  if (client && sessionId) void client.cancel(sessionId);
});

// Closing the tab should not leave the agent process waiting on a dead connection.
addEventListener("pagehide", () => void client?.disconnect());
