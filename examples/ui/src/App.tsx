// The app's shell: the connect form, then the session list beside the open session. One
// SandboxAgentClient at a time; sessions and their events are kept in IndexedDB (one database per
// server and agent), so a reload reattaches to the session the tab had open and its transcript
// comes back from the store without asking for the token again.
import { useEffect, useMemo, useRef, useState } from "react";
import {
  AgentError, indexedDbStore, SandboxAgentClient, type SessionHandle, type SessionListing,
} from "sandbox-agent-rx";
import { useObservable } from "sandbox-agent-rx/react";
import { connectionBadge, type Badge } from "./connection-badge.js";
import { ConnectForm } from "./ConnectForm.js";
import { SessionList, sessionTitle } from "./SessionList.js";
import { SessionView, type OpenedSession } from "./SessionView.js";
import {
  openSessionOf, prefilledTarget, rememberOpenSession, rememberTarget, rememberTitle, type ConnectTarget,
} from "./tab-memory.js";
import { reapShellsOfGonePages } from "./shell-reaper.js";
import { unloadSafeFetch } from "./unload-fetch.js";
import { errorText } from "./words.js";

const persistent = "indexedDB" in globalThis;
// Read as the module loads, before the page's load event: a token in the fragment leaves the address
// bar at once.
const initialTarget = prefilledTarget();
const TIMEOUT = { timeoutMs: 30_000 };

type Phase =
  | { kind: "connect"; error?: string }
  | { kind: "connecting" }
  | { kind: "ready"; client: SandboxAgentClient };

function clientFor(target: ConnectTarget): SandboxAgentClient {
  return new SandboxAgentClient({
    baseUrl: target.baseUrl,
    agent: target.agent,
    ...(target.token ? { token: target.token } : {}),
    // Permission requests wait in the transcript until the card answers them.
    onPermissionRequest: "ask",
    // So do the agent's questions, until the question card answers them.
    onInput: "ask",
    // So requests made as the page closes or reloads still reach the server (see unload-fetch.ts).
    fetch: unloadSafeFetch,
    ...(persistent ? { store: indexedDbStore({ name: `sandbox-agent-rx ${target.agent} ${target.baseUrl}` }) } : {}),
    // Connecting is explicit: a session to resume reattaches its stored connection instead.
    autoConnect: false,
  });
}

export function App() {
  const [target, setTarget] = useState<ConnectTarget>(initialTarget);
  const [phase, setPhase] = useState<Phase>({ kind: "connect" });
  const [sessions, setSessions] = useState<SessionListing[] | string>([]);
  const [open, setOpen] = useState<OpenedSession>();
  const [sidebar, setSidebar] = useState(false);
  // Why Delete is off for an agent that said it deletes sessions, then answered that it has no such call.
  const [noDelete, setNoDelete] = useState<string>();
  const current = useRef<SandboxAgentClient>();
  const client = phase.kind === "ready" ? phase.client : undefined;
  // Delete is offered only where the agent said, when connecting, that it deletes sessions.
  const canDelete = client?.connectInfo?.agentCan.deleteSession === true;

  const refresh = async (of = current.current): Promise<void> => {
    if (!of) return;
    const listing = await of.listSessions({}, { timeoutMs: 15_000 }).then(
      (list) => list.sessions,
      (error: unknown) => `Could not list sessions: ${errorText(error)}`,
    );
    if (current.current === of) setSessions(listing);
  };

  const show = (next: OpenedSession | undefined): void => {
    rememberOpenSession(target, next && { localId: next.localId, title: next.title, ...(next.cwd ? { cwd: next.cwd } : {}) });
    setOpen(next);
    setSidebar(false);
  };

  const connect = async (next: ConnectTarget): Promise<void> => {
    await teardown();
    setTarget(next);
    rememberTarget(next);
    let made: SandboxAgentClient;
    try {
      made = clientFor(next);
    } catch (error) {
      // A mistyped server URL is refused here (a TypeError naming the option), before anything is sent.
      setPhase({ kind: "connect", error: errorText(error) });
      return;
    }
    current.current = made;
    setNoDelete(undefined);
    setPhase({ kind: "connecting" });
    try {
      const remembered = openSessionOf(next);
      // A session this tab had open is resumed (reattached, loaded or replayed); failing that, a plain connect.
      const resumed = remembered
        ? await made.resumeSession(remembered.localId, {}, TIMEOUT).catch(() => undefined)
        : undefined;
      if (!made.connected) await made.connect(TIMEOUT);
      if (current.current !== made) return;
      setPhase({ kind: "ready", client: made });
      if (resumed && remembered) {
        setOpen({ sessionId: resumed.sessionId, localId: resumed.localId, title: remembered.title,
          ...(remembered.cwd ? { cwd: remembered.cwd } : {}) });
      } else rememberOpenSession(next, undefined);
      void refresh(made);
    } catch (error) {
      if (current.current !== made) return;
      current.current = undefined;
      await made.disconnect().catch(() => undefined);
      setPhase({ kind: "connect", error: `Could not connect: ${errorText(error)}` });
    }
  };

  const teardown = async (): Promise<void> => {
    const previous = current.current;
    current.current = undefined;
    setOpen(undefined);
    setSessions([]);
    await previous?.disconnect().catch(() => undefined);
  };

  // After a reload: back to the tab's open session without asking for the token again.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (openSessionOf(target)) void connect(target);
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  // Terminal shells of this browser's closed pages are ended from here (see shell-reaper.ts).
  useEffect(() => (client ? reapShellsOfGonePages(client) : undefined), [client]);
  // Closing the tab should not leave the agent process waiting on a dead connection. With a store
  // the connection stays, because a reload (indistinguishable from closing) reattaches to it.
  useEffect(() => {
    const onHide = (): void => void (persistent ? undefined : current.current?.disconnect());
    addEventListener("pagehide", onHide);
    return () => removeEventListener("pagehide", onHide);
  }, []);

  const create = async (title: string): Promise<void> => {
    if (!client) return;
    try {
      // In a browser the SDK has no working directory of its own to offer: start the session in the
      // server's home (what a relative fs path means there), so the agent and the file tree agree.
      const home = await client.fs.stat(".", { timeoutMs: 10_000 });
      const cwd = home.path.replace(/(.)\/$/, "$1");
      const handle = await client.newSession({ cwd, metadata: { title } }, TIMEOUT);
      rememberTitle(handle.sessionId, title);
      show({ sessionId: handle.sessionId, localId: handle.sessionId, title, cwd, handle });
      void refresh();
    } catch (error) {
      setSessions(`Could not start a session: ${errorText(error)}`);
    }
  };

  const remove = async (listing: SessionListing): Promise<void> => {
    if (!client) return;
    try {
      await client.deleteSession(listing.sessionId, TIMEOUT);
      if (open?.sessionId === listing.sessionId) show(undefined);
      void refresh();
    } catch (error) {
      // It said it could, yet answers "method not found": the action goes off, with why.
      if (error instanceof AgentError && error.code === -32601) setNoDelete(`${target.agent} cannot delete sessions`);
      else setSessions(`Could not delete the session: ${errorText(error)}`);
    }
  };

  const openListed = async (listing: SessionListing): Promise<void> => {
    if (!client) return;
    // Sessions of this connection are live already; others are loaded (when the agent can).
    const handle: SessionHandle | undefined = await client
      .loadSession(listing.sessionId, listing.cwd ? { cwd: listing.cwd } : {}, TIMEOUT)
      .catch(() => undefined);
    show({
      sessionId: listing.sessionId, localId: listing.sessionId, title: sessionTitle(listing),
      ...(listing.cwd ? { cwd: listing.cwd } : {}), ...(handle ? { handle } : {}),
    });
  };

  return (
    <div className={`app${open ? " has-session" : ""}${sidebar ? " sidebar-open" : ""}`}>
      <header className="topbar">
        {client ? (
          <button type="button" className="ghost sidebar-toggle" id="toggle-sessions" aria-label="Sessions"
            aria-expanded={sidebar} onClick={() => setSidebar((v) => !v)}>☰</button>
        ) : null}
        <span className="brand">sandbox-agent<b>rx</b></span>
        {client ? <span className="muted server" id="server">{target.agent} @ {target.baseUrl}</span> : null}
        <span className="spacer" />
        {client ? <ConnectionBadge client={client} /> : null}
        {client ? (
          <button type="button" className="ghost" id="disconnect"
            onClick={() => void teardown().then(() => setPhase({ kind: "connect" }))}>Disconnect</button>
        ) : null}
      </header>
      {phase.kind === "connect" ? (
        <ConnectForm target={target} error={phase.error} onSubmit={(next) => void connect(next)} />
      ) : phase.kind === "connecting" ? (
        <p className="muted center" id="connecting">Connecting…</p>
      ) : (
        <div className="workspace">
          <SessionList sessions={sessions} openId={open?.sessionId} onCreate={(title) => void create(title)}
            onOpen={(listing) => void openListed(listing)} onRefresh={() => void refresh()}
            onDelete={canDelete ? (listing) => void remove(listing) : undefined} deleteOff={noDelete} />
          {open ? (
            <SessionView key={open.sessionId} client={phase.client} server={target} session={open}
              onClose={() => show(undefined)} />
          ) : (
            <section className="empty-main">
              <b>No session open</b>
              <span className="muted">Start a new session or pick one from the list.</span>
            </section>
          )}
        </div>
      )}
    </div>
  );
}

function ConnectionBadge({ client }: { client: SandboxAgentClient }) {
  const badge$ = useMemo(() => connectionBadge(client), [client]);
  const badge = useObservable<Badge>(badge$, { state: client.state === "connected" ? "connected" : "connecting" });
  return (
    <span id="badge" className={`badge badge-${badge.state}`} data-state={badge.state} aria-live="polite">
      {badge.detail ? `${badge.state} (${badge.detail})` : badge.state}
    </span>
  );
}
