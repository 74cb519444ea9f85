/** §1.4 session subscribers and prompt owners, by connection id. */

export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class Subscriptions {
  private readonly bySession = new Map<string, Set<string>>();
  private readonly promptOwners = new Map<string, string>();

  subscribe(sessionId: string, connId: string): void {
    const set = this.bySession.get(sessionId) ?? new Set<string>();
    set.add(connId);
    this.bySession.set(sessionId, set);
  }

  /** Sorted, because §1.4 picks "the lexicographically smallest live subscriber". */
  subscribers(sessionId: string): string[] {
    return [...(this.bySession.get(sessionId) ?? [])].sort(byName);
  }

  setPromptOwner(sessionId: string, connId: string): void {
    this.promptOwners.set(sessionId, connId);
  }

  promptOwner(sessionId: string): string | undefined {
    return this.promptOwners.get(sessionId);
  }

  /** With `connId`, only that connection's ownership goes (a later prompt elsewhere keeps its own). */
  clearPromptOwner(sessionId: string, connId?: string): void {
    if (connId === undefined || this.promptOwners.get(sessionId) === connId) this.promptOwners.delete(sessionId);
  }

  /** `_sandboxagent/session/detach` (§4.1). */
  detach(sessionId: string, connId: string): void {
    this.bySession.get(sessionId)?.delete(connId);
    this.clearPromptOwner(sessionId, connId);
  }

  /** DELETE (§1.6). */
  dropConnection(connId: string): void {
    for (const set of this.bySession.values()) set.delete(connId);
    for (const [sessionId, owner] of this.promptOwners) if (owner === connId) this.promptOwners.delete(sessionId);
  }
}
