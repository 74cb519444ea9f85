// What this tab remembers across a reload, in sessionStorage (gone with the tab, never in the URL,
// never shared with other tabs): the server, the agent and the token it connected with, the session
// it had open (per server and agent), and the titles given to new sessions (a server that keeps no
// metadata, such as the released 0.4.x, forgets them).
export interface ConnectTarget {
  baseUrl: string;
  agent: string;
  /** Empty for a server started with --no-token. */
  token: string;
}

export interface OpenSession {
  /** The store's key for the session (its local id). */
  localId: string;
  title: string;
  cwd?: string;
}

const TARGET = "sandbox-agent-rx-ui:connection";
const TITLES = "sandbox-agent-rx-ui:titles";
const openKey = (target: ConnectTarget): string => `sandbox-agent-rx-ui:open ${target.agent} ${target.baseUrl}`;

function read<T>(key: string): T | undefined {
  try {
    return (JSON.parse(sessionStorage.getItem(key) ?? "null") as T | null) ?? undefined;
  } catch {
    return undefined;
  }
}

export function rememberTarget(target: ConnectTarget): void {
  sessionStorage.setItem(TARGET, JSON.stringify(target));
}

export function rememberedTarget(): ConnectTarget | undefined {
  const value = read<Partial<ConnectTarget>>(TARGET);
  if (typeof value?.baseUrl !== "string" || typeof value.agent !== "string") return undefined;
  return { baseUrl: value.baseUrl, agent: value.agent, token: typeof value.token === "string" ? value.token : "" };
}

/**
 * The form's initial values: `?server=URL&agent=NAME`, else what the tab remembers. A token may come
 * in the fragment (`#token=…`, never sent to any server): it is kept for the tab and removed from
 * the address bar (and so from history and bookmarks).
 */
export function prefilledTarget(): ConnectTarget {
  const params = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const remembered = rememberedTarget();
  const baseUrl = params.get("server") ?? remembered?.baseUrl ?? "http://127.0.0.1:2468";
  const agent = params.get("agent") ?? remembered?.agent ?? "mock";
  const fromFragment = fragment.get("token");
  if (fromFragment !== null) {
    history.replaceState(null, "", location.pathname + location.search);
    const target = { baseUrl, agent, token: fromFragment };
    rememberTarget(target);
    return target;
  }
  // A remembered token goes only to the server it was given for.
  const token = remembered && remembered.baseUrl === baseUrl ? remembered.token : "";
  return { baseUrl, agent, token };
}

export function rememberOpenSession(target: ConnectTarget, open: OpenSession | undefined): void {
  if (open) sessionStorage.setItem(openKey(target), JSON.stringify(open));
  else sessionStorage.removeItem(openKey(target));
}

export function openSessionOf(target: ConnectTarget): OpenSession | undefined {
  const value = read<Partial<OpenSession>>(openKey(target));
  if (typeof value?.localId !== "string") return undefined;
  return {
    localId: value.localId,
    title: String(value.title ?? value.localId),
    ...(typeof value.cwd === "string" ? { cwd: value.cwd } : {}),
  };
}

export function rememberTitle(sessionId: string, title: string): void {
  sessionStorage.setItem(TITLES, JSON.stringify({ ...read<Record<string, string>>(TITLES), [sessionId]: title }));
}

export function rememberedTitle(sessionId: string): string | undefined {
  return read<Record<string, string>>(TITLES)?.[sessionId];
}
