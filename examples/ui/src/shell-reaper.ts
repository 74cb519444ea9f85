// Ends the terminal shells of pages that are gone, without relying on the closing page itself.
//
// Why: the pagehide kill (page-exit-kill.ts) is made by the page being torn down, and a page that is
// slow enough (a loaded machine) is gone before its listener runs at all. The server does not help:
// on sandbox-agent 0.4.2 neither closing the terminal WebSocket nor SIGTERM (`stop`) ends an
// interactive bash (found by experiment); only `kill` does. So the pages that live on do it, on
// facts the browser keeps, not on timers:
// - each page holds a Web Lock named after its page id for as long as it lives; the browser releases
//   it when the page is gone, however it went (closed, reloaded, crashed);
// - each shell carries its page id in its arguments (`bash … -s ui-page=<id>`: `-s` makes the rest
//   positional parameters), so the server's process list says whose it is, even for a shell whose
//   spawn answer never reached its page;
// - the page ids this browser has used are kept in localStorage, so only its own shells are ended
//   (another browser on the same server has pages this one cannot see);
// - a page announces its id on a BroadcastChannel before it spawns, and every live page waits for
//   that page's lock: granted once the page is gone, it then ends the page's shells. A page that
//   loads ends the shells of pages gone while no page was open (the last tab closed, a reload).
import type { SandboxAgentClient } from "sandbox-agent-rx";

// randomUUID and Web Locks exist only in a secure context (https, or http on localhost); elsewhere
// shells are still tagged, but only the pagehide kill ends them.
const PAGE = globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
const TAG = "ui-page=";
const KNOWN = "sandbox-agent-rx ui pages";
const CHANNEL = "sandbox-agent-rx ui pages";
const lockOf = (page: string): string => `sandbox-agent-rx ui page ${page}`;

const locks: LockManager | undefined = globalThis.navigator?.locks;
// Held until the page is gone: the promise given to the lock never settles.
const held: Promise<void> = locks
  ? new Promise((granted) => void locks.request(lockOf(PAGE), () => (granted(), new Promise<never>(() => undefined))))
  : Promise.resolve();

function known(): string[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KNOWN) ?? "[]");
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

function remember(pages: string[]): void {
  localStorage.setItem(KNOWN, JSON.stringify([...new Set(pages)]));
}

/** The argument that marks a shell as this page's; announced to the other pages before it is used. */
export async function shellTag(): Promise<string> {
  await held;
  remember([...known(), PAGE]);
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(PAGE);
  channel.close();
  return TAG + PAGE;
}

/** Ends, through `client`, the shells of this browser's gone pages, now and whenever one goes. Returns a stop function. */
export function reapShellsOfGonePages(client: SandboxAgentClient): () => void {
  if (!locks) return () => undefined;
  const stop = new AbortController();
  const watching = new Set<string>();

  // `granted`: a page whose lock this page holds now, so it is gone (the query would call it held).
  const reap = async (granted?: string): Promise<void> => {
    const alive = new Set((await locks.query()).held?.map((lock) => lock.name) ?? []);
    const gone = new Set(known().filter((page) => page !== PAGE && (page === granted || !alive.has(lockOf(page)))));
    if (gone.size === 0) return;
    const processes = await client.processes.list();
    const kills = processes
      .filter((p) => p.status === "running" && p.args.some((a) => a.startsWith(TAG) && gone.has(a.slice(TAG.length))))
      .map((p) => client.processes.kill(p.id).catch(() => undefined));
    await Promise.all(kills);
    // Forget them only once their shells are ended, so a failed round is tried again next time.
    remember(known().filter((page) => !gone.has(page)));
  };
  const reapSafely = (granted?: string): Promise<void> => reap(granted).catch(() => undefined);

  // Waits for `page`'s lock: the browser grants it only once that page is gone.
  const watch = (page: string): void => {
    if (page === PAGE || watching.has(page)) return;
    watching.add(page);
    locks.request(lockOf(page), { signal: stop.signal }, () => reapSafely(page)).catch(() => undefined);
  };

  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent<unknown>) => {
    if (typeof event.data === "string") watch(event.data);
  };
  void reapSafely();
  for (const page of known()) watch(page);
  return () => {
    stop.abort();
    channel.close();
  };
}
