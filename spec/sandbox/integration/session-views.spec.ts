/**
 * Session views end with their connection, prompt() aborts cancel the turn, and
 * state$ only says `connected` for a connection that came up.
 */
import { Observable, type Subscription } from "rxjs";
import type { ConnectionState, SandboxAgentClientOptions, SandboxEvent } from "../../../lib/sandbox/index.js";
import { SandboxAgentClient } from "../../../lib/sandbox/index.js";
import { startV2ContractServer } from "../../support/v2-contract-server.js";
import { BOTH, recordingFetch, serverWithClients, sleep, v2Factory } from "./servers.js";

/** Resolves with "completed" when the view completes, or "open" if it has not within `ms`. */
function completion(sub: { done: Promise<void> }, ms = 5000): Promise<"completed" | "open"> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<"open">((resolve) => (timer = setTimeout(() => resolve("open"), ms)));
  return Promise.race([sub.done.then(() => "completed" as const), open]).finally(() => clearTimeout(timer));
}

function watch(client: SandboxAgentClient, sessionId: string): { sub: Subscription; done: Promise<void> } {
  let sub: Subscription | undefined;
  const done = new Promise<void>((resolve, reject) => {
    sub = client.session(sessionId).events$.subscribe({ complete: resolve, error: reject });
  });
  return { sub: sub as Subscription, done };
}

describe.each(BOTH)("session views against the $name", (factory) => {
  const { client } = serverWithClients(factory);

  it("complete when their connection is closed by disconnect()", async () => {
    const c = client();
    await c.ready;
    const { sessionId } = await c.newSession();
    const view = watch(c, sessionId);
    await c.disconnect();
    expect(await completion(view)).toBe("completed");
    expect(view.sub.closed).toBe(true);
  });

  it("leave nothing subscribed across three connections of 100 views each", async () => {
    const c = client({ autoConnect: false });
    // Count the observers that views hold on the client's event subject (through events$).
    let observers = 0;
    const original = c.events$;
    const counted = new Observable<SandboxEvent>((subscriber) => {
      observers++;
      const inner = original.subscribe(subscriber);
      return () => {
        observers--;
        inner.unsubscribe();
      };
    });
    Object.defineProperty(c, "events$", { value: counted });
    const views: Array<{ sub: Subscription; done: Promise<void> }> = [];
    for (let round = 0; round < 3; round++) {
      await c.connect();
      const { sessionId } = await c.newSession();
      for (let i = 0; i < 100; i++) views.push(watch(c, sessionId));
      await c.disconnect();
    }
    expect(views).toHaveLength(300);
    expect(views.filter((view) => !view.sub.closed).length).toBe(0);
    expect(observers).toBe(0);
    await Promise.all(views.map((view) => view.done));
  });
});

describe("session views when the connection is lost", () => {
  it("complete once the connection is declared closed", async () => {
    const server = await startV2ContractServer({ mockChunkDelayMs: 5 });
    const c = new SandboxAgentClient({
      baseUrl: server.baseUrl,
      agent: "mock",
      reconnect: { maxRetries: 0, initialDelayMs: 10, maxDelayMs: 10 },
    });
    try {
      await c.ready;
      const { sessionId } = await c.newSession();
      const view = watch(c, sessionId);
      await server.stop();
      expect(await completion(view, 10000)).toBe("completed");
      expect(view.sub.closed).toBe(true);
    } finally {
      await c.disconnect();
    }
  });
});

describe("prompt() aborted through its signal", () => {
  const { client } = serverWithClients(v2Factory);

  it("sends session/cancel, as unsubscribing prompt$ does", async () => {
    const recorder = recordingFetch();
    const c = client({ fetch: recorder.fetch });
    await c.ready;
    const { sessionId } = await c.newSession();
    const controller = new AbortController();
    // The mock streams one chunk per word: a long turn still runs when the signal aborts.
    const turn = c.prompt(sessionId, Array.from({ length: 200 }, (_, i) => `w${i}`).join(" "), {
      signal: controller.signal,
    });
    await sleep(150);
    controller.abort();
    await expect(turn).rejects.toMatchObject({ name: "AbortError" });
    for (let i = 0; i < 50 && !recorder.rpcMethods().includes("session/cancel"); i++) await sleep(20);
    expect(recorder.rpcMethods()).toContain("session/cancel");
    expect((await c.prompt(sessionId, "again")).stopReason).toBe("end_turn");
  });
});

/**
 * A fetch whose `initialize` answer keeps the server's headers (so the connection id is
 * adopted and the stream opens) but whose body, sent late, is a JSON-RPC error.
 */
function initializeFailsLate(): typeof globalThis.fetch {
  return async (input, init) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const response = await globalThis.fetch(input, init);
    if (!body.includes('"initialize"')) return response;
    await response.arrayBuffer();
    const id = (JSON.parse(body) as { id: unknown }).id;
    const error = JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "initialize failed late" } });
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        await sleep(300);
        controller.enqueue(new TextEncoder().encode(error));
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: response.headers });
  };
}

describe.each(BOTH)("state$ during a connect that fails against the $name", (factory) => {
  const { client } = serverWithClients(factory);

  it.each([
    ["an unknown agent", { agent: "no-such-agent" }],
    ["an initialize that fails after the stream opened", { fetch: initializeFailsLate() }],
  ])("never says connected for %s", async (_what, extra) => {
    const options: Partial<SandboxAgentClientOptions> = { autoConnect: false, ...extra };
    const c = client(options);
    const states: ConnectionState[] = [];
    const sub = c.state$.subscribe((state) => states.push(state));
    await expect(c.connect()).rejects.toBeDefined();
    await sleep(100);
    sub.unsubscribe();
    expect(states).not.toContain("connected");
    expect(states.at(-1)).toBe("disconnected");
  });
});

describe("session calls' timeoutMs values", () => {
  const { client } = serverWithClients(v2Factory);

  it("treat Infinity and 2^31 or more as no timeout, and reject a negative or NaN one with a TypeError", async () => {
    const c = client();
    await c.ready;
    const { sessionId } = await c.newSession({}, { timeoutMs: Infinity });
    await expect(c.prompt(sessionId, "hi", { timeoutMs: 2 ** 31 })).resolves.toMatchObject({ stopReason: "end_turn" });
    await expect(c.prompt(sessionId, "hi", { timeoutMs: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(c.listSessions({}, { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(TypeError);
  });
});
