// The session page: the SDK's transcript of the session (its stored history, then live: a reopened or
// reloaded session shows all of it), re-rendered at most once per animation frame; a composer;
// cancel; pickers; panels.
import { animationFrameScheduler, auditTime, share, Subscription } from "rxjs";
import type { SandboxAgentClient, SessionHandle } from "sandbox-agent-rx";
import { errorText, h } from "./dom.js";
import type { ServerAccess } from "./page-exit-kill.js";
import { panels } from "./panels/panels.js";
import { modelPicker, modePicker } from "./pickers.js";
import { TranscriptView } from "./transcript-view.js";

export interface SessionPageOptions {
  client: SandboxAgentClient;
  /** Where the client connects, for requests that must be made synchronously as the page goes away. */
  server: ServerAccess;
  sessionId: string;
  title: string;
  /** What session/new answered, when this page created the session. */
  handle?: SessionHandle;
  onBack(): void;
}

export function sessionPage(options: SessionPageOptions): { element: HTMLElement; subscription: Subscription } {
  const { client, sessionId } = options;
  const subscription = new Subscription();
  const transcriptRoot = h("div", { class: "transcript", id: "transcript" });
  const transcriptView = new TranscriptView(transcriptRoot);
  const view = client.session(sessionId);
  const events$ = view.events$.pipe(share());
  // What was sent, how each turn ended and how each permission was answered are in it too.
  subscription.add(
    view.transcript$
      .pipe(auditTime(0, animationFrameScheduler))
      .subscribe((transcript) => transcriptView.render(transcript)),
  );

  const placeholder = "Ask the agent… (Enter sends, Shift+Enter: new line)";
  const input = h("textarea", { name: "prompt", rows: 3, placeholder });
  const send = h("button", { type: "submit", class: "primary", id: "send" }, "Send");
  const cancel = h("button", { type: "button", id: "cancel", class: "danger", disabled: true }, "Cancel");
  const stopReason = h("span", { class: "muted", id: "stop-reason" });
  const busy = (running: boolean): void => {
    send.disabled = running;
    cancel.disabled = !running;
    transcriptRoot.classList.toggle("running", running);
  };
  const composer = h("form", { class: "composer", id: "composer" }, input,
    h("div", { class: "composer-actions" }, stopReason, cancel, send));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = "";
    stopReason.textContent = "";
    busy(true);
    // The prompt, the turn's end and a failure all show in the transcript; the bar repeats the outcome.
    client
      .prompt(sessionId, text)
      .then((outcome) => {
        stopReason.textContent = `Stop reason: ${outcome.stopReason}`;
      })
      .catch((error: unknown) => {
        stopReason.textContent = errorText(error);
      })
      .finally(() => busy(false));
  });
  cancel.addEventListener("click", () => {
    client
      .cancel(sessionId)
      .catch((error: unknown) => {
        stopReason.textContent = `Cancel failed: ${errorText(error)}`;
      });
  });

  const pickers = h("div", { class: "pickers" }, modePicker(client, sessionId, options.handle, events$, subscription));
  void modelPicker(client, sessionId, options.handle, events$, subscription).then((picker) => pickers.append(picker));
  const bar = h(
    "div",
    { class: "session-bar" },
    h("button", { type: "button", class: "ghost", onclick: () => options.onBack() }, "← Sessions"),
    h("div", { class: "session-heading" }, h("h2", {}, options.title), h("span", { class: "muted mono" }, sessionId)),
    pickers,
  );
  const side = panels(client, options.server, subscription);
  const element = h(
    "section",
    { class: "session-page", "data-session": sessionId },
    bar,
    h("div", { class: "session-main" }, h("div", { class: "transcript-pane" }, transcriptRoot), composer),
    side,
  );
  return { element, subscription };
}
