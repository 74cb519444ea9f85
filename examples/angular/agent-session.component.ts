// A standalone component on top of AgentSessionService: a prompt box, the streamed answer, the
// plan and tool calls, and Allow/Reject buttons while the agent waits for permission.
import { ChangeDetectionStrategy, Component, inject, signal } from "@angular/core";
import { AgentSessionService } from "./agent-session.service.js";

@Component({
  selector: "app-agent-session",
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <p class="state">Connection: {{ agent.state() }}@if (agent.sessionId(); as id) { · session {{ id }} }</p>

    <form (submit)="send($event)">
      <input [value]="prompt()" (input)="onInput($event)" placeholder="Ask the agent" />
      <button type="submit" [disabled]="!agent.canSend() || !prompt()">Send</button>
      @if (agent.running()) {
        <button type="button" (click)="agent.cancel()">Cancel</button>
      }
    </form>

    @if (agent.pendingPermission(); as pending) {
      <div class="permission" role="alertdialog">
        The agent wants to: {{ pending.request.toolCall.title ?? pending.request.toolCall.toolCallId }}
        <button (click)="pending.answer(true)">Allow</button>
        <button (click)="pending.answer(false)">Reject</button>
      </div>
    }

    @if (agent.transcript().plan.length) {
      <ul class="plan">
        @for (entry of agent.transcript().plan; track $index) {
          <li [class]="entry.status">{{ entry.content }}</li>
        }
      </ul>
    }
    <ul class="tools">
      @for (tool of agent.transcript().tools; track tool.id) {
        <li>{{ tool.title }} — {{ tool.status }}</li>
      }
    </ul>
    <pre class="answer">{{ agent.transcript().text }}</pre>

    @if (agent.stopReason(); as reason) { <p>Stop reason: {{ reason }}</p> }
    @if (agent.error(); as error) { <p class="error">{{ error }}</p> }
  `,
})
export class AgentSessionComponent {
  protected readonly agent = inject(AgentSessionService);
  protected readonly prompt = signal("");

  protected onInput(event: Event): void {
    if (event.target instanceof HTMLInputElement) this.prompt.set(event.target.value);
  }

  protected send(event: Event): void {
    event.preventDefault();
    const text = this.prompt();
    this.prompt.set("");
    void this.agent.send(text);
  }
}
