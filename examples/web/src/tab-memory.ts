// What this tab remembers of its connection across a reload, in sessionStorage (gone with the tab,
// never in the URL, never shared with other tabs): the server, the agent and the token. The React
// example keeps the same facts the same way (examples/react/src/tab-memory.ts).
export interface RememberedTarget {
  baseUrl: string;
  agent: string;
  token: string;
}

const KEY = "sandbox-agent-rx-web:connection";

export function rememberTarget(target: RememberedTarget): void {
  sessionStorage.setItem(KEY, JSON.stringify(target));
}

export function rememberedTarget(): RememberedTarget | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<RememberedTarget> | null;
    if (typeof value?.baseUrl !== "string" || typeof value.agent !== "string") return undefined;
    return { baseUrl: value.baseUrl, agent: value.agent, token: typeof value.token === "string" ? value.token : "" };
  } catch {
    return undefined;
  }
}
