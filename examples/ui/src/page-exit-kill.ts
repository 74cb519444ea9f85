// The request that ends a process when the page goes away (tab closed, reload, navigation), sent
// synchronously from a pagehide listener.
//
// Why not `client.processes.kill(id)`: the SDK call awaits (token resolution, header merging) before
// it calls fetch, and a page being torn down runs no more microtasks or timers once its pagehide
// listeners return. On a loaded machine the page was gone before the fetch was made, and the shell
// kept running. A browser finishes a `keepalive` fetch only if the fetch call itself happened while
// the page was alive, so the URL and headers are prepared when the shell starts and the handler
// makes the call at once.
//
// Why `kill`: found on sandbox-agent 0.4.2 by experiment. `POST /v1/processes/{id}/stop` (SIGTERM)
// leaves an interactive bash running (it ignores SIGTERM); `POST …/kill` ends it. Closing the
// terminal WebSocket (cleanly or not) does not end the process either: the server keeps the PTY
// open. So the kill request is the only thing that ends a closed page's shell.
export interface ServerAccess {
  baseUrl: string;
  /** Empty for a server started with --no-token. */
  token: string;
}

/** A function that sends `POST /v1/processes/{id}/kill` at once, with `keepalive`, answer ignored. */
export function preparedKill(server: ServerAccess, processId: string): () => void {
  const url = `${server.baseUrl.replace(/\/+$/, "")}/v1/processes/${encodeURIComponent(processId)}/kill`;
  const headers: Record<string, string> = server.token ? { authorization: `Bearer ${server.token}` } : {};
  return () => void fetch(url, { method: "POST", keepalive: true, headers }).catch(() => undefined);
}
