// Connect form → a new session → the conversation; or the synthetic demo transcript (`?demo=N`).
// Sessions and their events are kept in IndexedDB and the tab remembers (sessionStorage, never the
// URL) the server, the token and the open session, so a reload reattaches and the transcript comes
// back from the store.
import { useEffect, useState, type FormEvent } from "react";
import { indexedDbStore, SandboxAgentClient } from "sandbox-agent-rx";
import { useConnectionState } from "sandbox-agent-rx/react";
import { Conversation } from "./Conversation.js";
import { DemoTranscript } from "./DemoTranscript.js";
import { forget, remember, remembered, type Connection } from "./tab-memory.js";

const params = new URLSearchParams(location.search);

interface Open {
  client: SandboxAgentClient;
  sessionId: string;
}

/** Connects (resuming the session this tab had open, if any) and opens a session. */
async function start(connection: Connection): Promise<Open> {
  const { server, agent, token } = connection;
  const client = new SandboxAgentClient({
    baseUrl: server,
    agent,
    ...(token ? { token } : {}),
    // Permission requests wait in the transcript until the card answers them.
    onPermissionRequest: "ask",
    store: indexedDbStore({ name: `sandbox-agent-rx-react ${agent} ${server}` }),
    // Connecting is explicit: a session to resume reattaches its stored connection instead.
    autoConnect: false,
  });
  try {
    const previous = connection.localId;
    const resumed = previous
      ? await client.resumeSession(previous, {}, { timeoutMs: 30_000 }).catch(() => undefined)
      : undefined;
    if (!client.connected) await client.connect({ timeoutMs: 30_000 });
    if (resumed) return { client, sessionId: resumed.sessionId };
    // The server's home (what a relative fs path means there) as the session's folder.
    const home = await client.fs.stat(".");
    const { sessionId } = await client.newSession({ cwd: home.path.replace(/(.)\/$/, "$1") });
    remember({ ...connection, localId: sessionId });
    return { client, sessionId };
  } catch (error) {
    await client.disconnect().catch(() => undefined);
    throw error;
  }
}

export function App() {
  const demo = Number(params.get("demo") ?? 0);
  const [session, setSession] = useState<Open>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const open = (connection: Connection) => {
    setBusy(true);
    setError(undefined);
    remember(connection);
    start(connection)
      .then(setSession)
      .catch((reason: unknown) => {
        forget();
        setError(reason instanceof Error ? reason.message : String(reason));
      })
      .finally(() => setBusy(false));
  };
  // After a reload: back to the tab's session without asking for the token again.
  useEffect(() => {
    const saved = remembered();
    if (saved && demo === 0) open(saved);
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  if (demo > 0) {
    return (
      <>
        <header><b>sandbox-agent-rx · react</b><span className="spacer" /><span className="badge">demo</span></header>
        <DemoTranscript size={demo} />
      </>
    );
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const token = String(form.get("token") ?? "");
    open({ server: String(form.get("server")), agent: String(form.get("agent")), ...(token ? { token } : {}) });
  };

  return (
    <>
      <header>
        <b>sandbox-agent-rx · react</b>
        <span className="spacer" />
        {session ? <Badge client={session.client} /> : null}
      </header>
      <main>
        {session ? (
          <Conversation client={session.client} sessionId={session.sessionId} />
        ) : busy ? (
          <p className="entry notice">Connecting…</p>
        ) : (
          <form className="connect" id="connect" onSubmit={submit}>
            <label>Server <input name="server" defaultValue={params.get("server") ?? "http://127.0.0.1:2468"} /></label>
            <label>Agent <input name="agent" defaultValue={params.get("agent") ?? "mock"} /></label>
            <label>Token <input name="token" type="password" autoComplete="off" /></label>
            <button className="primary" type="submit">Connect and start a session</button>
            {error ? <p className="agent-error">{error}</p> : null}
          </form>
        )}
      </main>
    </>
  );
}

function Badge({ client }: { client: SandboxAgentClient }) {
  const state = useConnectionState(client);
  return <span id="badge" className="badge" data-state={state}>{state}</span>;
}
