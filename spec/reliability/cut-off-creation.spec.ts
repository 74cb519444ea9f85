/**
 * A connect cut off by `disconnect()` while the real 0.4.2 server is still creating the agent
 * instance its initialize POST asked for. The server finishes the creation after the close's DELETE
 * has come and gone (that DELETE answers 204 whether or not it found anything), so only a close that
 * waits for the creation to be over can remove what it created.
 *
 * The late creation is made certain, not left to the machine's load: a fetch in front of the server
 * holds the initialize POST until the client has aborted it and the close's DELETE has been answered,
 * then delivers it, as a server that had received it earlier and created slowly would act on it. A
 * request that waits for a creation in progress is let through only once that creation is answered,
 * which is what the server's one-creation-per-id lock does.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { drained, report } from "./support/helpers.js";

let server: SandboxAgentServer;

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

/** A fetch that makes the server create the instance after the close's DELETE was answered. */
function lateCreatingFetch(): {
  fetch: typeof globalThis.fetch;
  posted: Promise<void>;
  created: Promise<Response>;
  requests: string[];
} {
  let posted!: () => void;
  const postedPromise = new Promise<void>((resolve) => (posted = resolve));
  let deleteAnswered!: () => void;
  const deleted = new Promise<void>((resolve) => (deleteAnswered = resolve));
  let created!: (response: Promise<Response>) => void;
  const createdPromise = new Promise<Response>((resolve) => (created = resolve));
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    // The protocol client passes a URL and init, the control plane a Request: one shape for both.
    const request = new Request(input, init);
    const { pathname, search } = new URL(request.url);
    requests.push(`${request.method} ${pathname}${search}`);
    if (request.method === "POST" && new URL(request.url).searchParams.has("agent")) {
      const signal = init?.signal as AbortSignal;
      posted();
      // The client sees an aborted request; the server gets it after the DELETE.
      const late = new Request(request, { signal: null });
      void deleted.then(() => created(globalThis.fetch(late)));
      return new Promise<Response>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    if (request.method === "POST" && pathname.startsWith("/v1/acp/")) {
      // Another POST to the id waits for the creation in progress, as the server's lock makes it.
      await createdPromise;
    }
    const response = await globalThis.fetch(request);
    if (request.method === "DELETE") deleteAnswered();
    return response;
  };
  return { fetch, posted: postedPromise, created: createdPromise, requests };
}

describe("a connect cut off while the server creates its agent instance", () => {
  it("leaves no instance behind once the server has finished creating it", async () => {
    const wire = lateCreatingFetch();
    const client = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      serverApi: "v1",
      autoConnect: false,
      fetch: wire.fetch,
    });
    const connecting = client.connect().catch((error: unknown) => error);
    await wire.posted;
    await client.disconnect();
    expect(await connecting).toBeInstanceOf(Error);
    const created = await wire.created;
    expect(created.status).toBe(200); // the server did create the instance, after the DELETE
    await created.body?.cancel();
    const { listed } = await drained(server.baseUrl, 20_000);
    report("cut-off creation", { requests: wire.requests, listed });
    expect(listed).toEqual([]);
  }, 60_000);
});
