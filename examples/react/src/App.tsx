// Connect form → a new session → the conversation; or the synthetic demo transcript (`?demo=N`).
import { useState, type FormEvent } from "react";
import { SandboxAgentClient } from "sandbox-agent-rx";
import { useConnectionState } from "sandbox-agent-rx/react";
import { Conversation } from "./Conversation.js";
import { DemoTranscript } from "./DemoTranscript.js";

const params = new URLSearchParams(location.search);

export function App() {
  const demo = Number(params.get("demo") ?? 0);
  const [session, setSession] = useState<{ client: SandboxAgentClient; sessionId: string }>();
  const [error, setError] = useState<string>();
  if (demo > 0) {
    return (
      <>
        <header><b>sandbox-agent-rx · react</b><span className="spacer" /><span className="badge">demo</span></header>
        <DemoTranscript size={demo} />
      </>
    );
  }

  const connect = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const token = String(form.get("token") ?? "") || undefined;
    // Permission requests wait in the transcript until the card below answers them.
    const client = new SandboxAgentClient({
      baseUrl: String(form.get("server")),
      agent: String(form.get("agent")),
      ...(token ? { token } : {}),
      onPermissionRequest: "ask",
    });
    setError(undefined);
    client.ready
      .then(() => client.fs.stat("."))
      .then((home) => client.newSession({ cwd: home.path.replace(/(.)\/$/, "$1") }))
      .then(({ sessionId }) => setSession({ client, sessionId }))
      .catch((reason: unknown) => {
        setError(reason instanceof Error ? reason.message : String(reason));
        void client.disconnect();
      });
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
        ) : (
          <form className="connect" id="connect" onSubmit={connect}>
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
