// The connect form: server URL, token and agent, labels in one column and fields in the other.
import { useState, type FormEvent } from "react";
import type { ConnectTarget } from "./tab-memory.js";

export function ConnectForm({ target, error, onSubmit }: {
  target: ConnectTarget;
  error: string | undefined;
  onSubmit(target: ConnectTarget): void;
}) {
  const [baseUrl, setBaseUrl] = useState(target.baseUrl);
  const [token, setToken] = useState(target.token);
  const [agent, setAgent] = useState(target.agent);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ baseUrl: baseUrl.trim().replace(/\/+$/, ""), token, agent: agent.trim() });
  };
  return (
    <form id="connect" className="card connect" onSubmit={submit}>
      <h2>Connect to a sandbox</h2>
      <p className="muted">A sandbox-agent server that allows this page's origin (CORS).</p>
      <div className="fields">
        <label htmlFor="connect-server">Server URL</label>
        <input id="connect-server" name="baseUrl" value={baseUrl} required onChange={(e) => setBaseUrl(e.target.value)} />
        <label htmlFor="connect-token">Token</label>
        <input id="connect-token" name="token" type="password" value={token} placeholder="none" autoComplete="off"
          onChange={(e) => setToken(e.target.value)} />
        <label htmlFor="connect-agent">Agent</label>
        <input id="connect-agent" name="agent" value={agent} required onChange={(e) => setAgent(e.target.value)} />
      </div>
      {error ? <p className="error" id="connect-error" role="alert">{error}</p> : null}
      <div className="actions"><button type="submit" className="primary">Connect</button></div>
    </form>
  );
}
