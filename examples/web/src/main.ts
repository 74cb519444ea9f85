// The web example's shell: connect → session list → session page, one SandboxAgentClient at a time.
// Only the package's public API is used (`sandbox-agent-rx`, aliased to lib/ by vite.config.ts).
import { Subscription } from "rxjs";
import { indexedDbStore, SandboxAgentClient, type SessionHandle } from "sandbox-agent-rx";
import { connectionBadge, renderBadge } from "./connection-badge.js";
import { connectView, prefilledTarget, type ConnectTarget } from "./connect-view.js";
import { byId, errorText, h } from "./dom.js";
import { openSessionOf, rememberOpenSession } from "./open-session.js";
import { permissionHandler } from "./permission-dialog.js";
import { rememberTitle, sessionListView, sessionTitle } from "./session-list-view.js";
import { sessionPage } from "./session-page.js";
import { reapShellsOfGonePages } from "./shell-reaper.js";
import { unloadSafeFetch } from "./unload-fetch.js";

const app = byId<HTMLElement>("app");
const badge = byId<HTMLElement>("badge");
const serverLabel = byId<HTMLElement>("server");
const disconnectButton = byId<HTMLButtonElement>("disconnect");

const persistent = "indexedDB" in globalThis;
let client: SandboxAgentClient | undefined;
let target = prefilledTarget();
let clientSubscription = new Subscription();
let pageSubscription = new Subscription();

function show(element: HTMLElement, subscription = new Subscription()): void {
  pageSubscription.unsubscribe();
  pageSubscription = subscription;
  app.replaceChildren(element);
}

function showConnect(error?: string): void {
  disconnectButton.hidden = true;
  serverLabel.textContent = "";
  show(connectView(target, error, (next) => void connect(next)));
}

async function connect(next: ConnectTarget): Promise<void> {
  target = next;
  await teardown();
  let current: SandboxAgentClient;
  try {
    current = new SandboxAgentClient({
      baseUrl: next.baseUrl,
      agent: next.agent,
      ...(next.token ? { token: next.token } : {}),
      onPermissionRequest: permissionHandler(),
      // So requests made as the page closes or reloads still reach the server (see unload-fetch.ts).
      fetch: unloadSafeFetch,
      // Sessions and their events are kept in IndexedDB (one database per server and agent), so a
      // reload can reattach to the open session and rebuild its transcript from the store.
      ...(persistent ? { store: indexedDbStore({ name: `sandbox-agent-rx ${next.agent} ${next.baseUrl}` }) } : {}),
      // Connecting is explicit: a session to resume reattaches the stored connection instead.
      autoConnect: false,
    });
  } catch (error) {
    // A mistyped server URL is refused here (a TypeError naming the option), before anything is sent.
    showConnect(errorText(error));
    return;
  }
  client = current;
  clientSubscription = connectionBadge(current).subscribe((state) => renderBadge(badge, state));
  serverLabel.textContent = `${next.agent} @ ${next.baseUrl}`;
  disconnectButton.hidden = false;
  show(h("p", { class: "muted center" }, "Connecting…"));
  try {
    const open = openSessionOf(next);
    // A session this tab had open is resumed (reattached, loaded or replayed); failing that, a plain connect.
    const resumed = open
      ? await current.resumeSession(open.localId, {}, { timeoutMs: 30_000 }).catch(() => undefined)
      : undefined;
    if (!current.connected) await current.connect({ timeoutMs: 30_000 });
    if (client !== current) return;
    // Terminal shells of this browser's closed pages are ended from here (see shell-reaper.ts).
    clientSubscription.add(reapShellsOfGonePages(current));
    if (resumed && open) openSession(resumed.sessionId, open.title, undefined, resumed.localId);
    else await showSessions();
  } catch (error) {
    if (client === current) showConnect(`Could not connect: ${errorText(error)}`);
  }
}

async function teardown(): Promise<void> {
  pageSubscription.unsubscribe();
  const previous = client;
  client = undefined;
  await previous?.disconnect().catch(() => undefined);
  clientSubscription.unsubscribe();
  badge.textContent = "";
  badge.className = "badge";
}

async function showSessions(): Promise<void> {
  const current = client;
  if (!current) return showConnect();
  const listing = await current.listSessions({}, { timeoutMs: 15_000 }).then(
    (list) => list.sessions,
    (error: unknown) => `Could not list sessions: ${errorText(error)}`,
  );
  if (client !== current) return;
  show(sessionListView(listing, {
    refresh: () => void showSessions(),
    create: (title) => {
      // In a browser the SDK has no working directory of its own to offer: start the session in the
      // server's home (what a relative fs path means there), so the agent and the file tree agree.
      current.fs
        .stat(".", { timeoutMs: 10_000 })
        .then((home) => {
          const cwd = home.path.replace(/(.)\/$/, "$1");
          return current.newSession({ cwd, metadata: { title } }, { timeoutMs: 30_000 });
        })
        .then((handle) => {
          rememberTitle(handle.sessionId, title);
          openSession(handle.sessionId, title, handle);
        })
        .catch((error: unknown) => alert(`Could not start a session: ${errorText(error)}`));
    },
    open: (sessionId) => {
      const found = typeof listing === "string" ? undefined : listing.find((s) => s.sessionId === sessionId);
      const title = found ? sessionTitle(found) : sessionId;
      // Sessions of this connection are live already; others are loaded (when the agent can).
      current
        .loadSession(sessionId, {}, { timeoutMs: 30_000 })
        .catch(() => undefined)
        .then(() => openSession(sessionId, title));
    },
  }));
}

/** `localId` is set for a session resumed from the store. */
function openSession(sessionId: string, title: string, handle?: SessionHandle, localId?: string): void {
  const current = client;
  if (!current) return;
  rememberOpenSession(target, { localId: localId ?? sessionId, title });
  const back = (): void => {
    rememberOpenSession(target, undefined);
    void showSessions();
  };
  const page = sessionPage({
    client: current, server: target, sessionId, title, ...(handle ? { handle } : {}), onBack: back,
  });
  show(page.element, page.subscription);
}

disconnectButton.addEventListener("click", () => void teardown().then(() => showConnect()));
// Closing the tab should not leave the agent process waiting on a dead connection. With a store the
// connection stays, because a reload (indistinguishable from closing) reattaches to it.
addEventListener("pagehide", () => void (persistent ? undefined : client?.disconnect()));

showConnect();
