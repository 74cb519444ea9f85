// A standalone component on top of AgentSessionService: a prompt box, the session's transcript entry
// by entry (messages, thoughts, tool calls, the plan, notices), and Allow/Reject buttons while the
// agent waits for permission.
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
        The agent wants to: {{ pending.request.toolCall.title ?? pending.request.toolCallId }}
        <button (click)="pending.answer(true)">Allow</button>
        <button (click)="pending.answer(false)">Reject</button>
      </div>
    }

    <ol class="transcript">
      @for (entry of agent.transcript().entries; track entry.id) {
        @switch (entry.kind) {
          @case ("user-message") { <li class="user">{{ $any(entry).text }}</li> }
          @case ("agent-message") { <li class="answer"><pre>{{ $any(entry).text }}</pre></li> }
          @case ("thought") { <li class="thought"><details><summary>Thinking</summary>{{ $any(entry).text }}</details></li> }
          @case ("tool-call") { <li class="tool">{{ $any(entry).title }} — {{ $any(entry).status }}</li> }
          @case ("plan") {
            <li class="plan"><ul>
              @for (step of $any(entry).entries; track $index) { <li [class]="step.status">{{ step.content }}</li> }
            </ul></li>
          }
          @case ("turn-end") { <li class="turn-end">Turn ended: {{ $any(entry).stopReason }}</li> }
        }
      }
    </ol>
    @if (agent.transcript().isThinking) { <p class="thinking">Thinking…</p> }

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
