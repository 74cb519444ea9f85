// Which session the tab had open, per server and agent, in sessionStorage (never the token), so
// that after a reload the page can resume it from the store.
import type { ConnectTarget } from "./connect-view.js";

export interface OpenSession {
  localId: string;
  title: string;
}

const key = (target: ConnectTarget): string => `sandbox-agent-rx:open ${target.agent} ${target.baseUrl}`;

export function rememberOpenSession(target: ConnectTarget, open: OpenSession | undefined): void {
  if (open) sessionStorage.setItem(key(target), JSON.stringify(open));
  else sessionStorage.removeItem(key(target));
}

export function openSessionOf(target: ConnectTarget): OpenSession | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(key(target)) ?? "null") as Partial<OpenSession> | null;
    if (typeof value?.localId !== "string") return undefined;
    return { localId: value.localId, title: String(value.title ?? value.localId) };
  } catch {
    return undefined;
  }
}
