// The connection badge: state$ for connecting / connected / reconnecting, and disconnected$ to tell
// a connection that was lost (the server went away, retries ran out) from one the user closed.
import { map, merge, scan, type Observable } from "rxjs";
import type { SandboxAgentClient } from "sandbox-agent-rx";

export interface Badge {
  state: "connecting" | "connected" | "reconnecting" | "disconnected" | "lost";
  detail?: string;
}

export function connectionBadge(client: SandboxAgentClient): Observable<Badge> {
  const states = client.state$.pipe(map((state): Badge => ({ state })));
  const ends = client.disconnected$.pipe(
    map((info): Badge =>
      info.reason === "disconnected" ? { state: "disconnected" } : { state: "lost", detail: info.reason },
    ),
  );
  // After a loss the state also turns "disconnected": keep saying "lost" until a new connect starts.
  return merge(states, ends).pipe(
    scan((previous: Badge, next: Badge) =>
      previous.state === "lost" && next.state === "disconnected" ? previous : next),
  );
}

export function renderBadge(element: HTMLElement, badge: Badge): void {
  element.className = `badge badge-${badge.state}`;
  element.dataset.state = badge.state;
  element.textContent = badge.detail ? `${badge.state} (${badge.detail})` : badge.state;
}
