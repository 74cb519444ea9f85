// What this tab remembers across a reload, in sessionStorage (gone with the tab, never in the URL):
// the server, the agent, the token, and the session it had open.
export interface Connection {
  server: string;
  agent: string;
  token?: string;
  /** The open session's local id (the store's key for it). */
  localId?: string;
}

const KEY = "sandbox-agent-rx-react:connection";

export function remember(connection: Connection): void {
  sessionStorage.setItem(KEY, JSON.stringify(connection));
}

export function remembered(): Connection | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<Connection> | null;
    if (typeof value?.server !== "string" || typeof value.agent !== "string") return undefined;
    return {
      server: value.server,
      agent: value.agent,
      ...(typeof value.token === "string" ? { token: value.token } : {}),
      ...(typeof value.localId === "string" ? { localId: value.localId } : {}),
    };
  } catch {
    return undefined;
  }
}

export function forget(): void {
  sessionStorage.removeItem(KEY);
}
