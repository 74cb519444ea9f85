/** The two server contracts the sandbox client speaks, as factories for `describe.each`. */
import { Subject, firstValueFrom, filter, timeout, type Observable } from "rxjs";
import { SandboxAgentClient, type SandboxAgentClientOptions } from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { startV2ContractServer, type V2ContractServer } from "../../support/v2-contract-server.js";

export interface TestServer {
  kind: "v1" | "v2";
  baseUrl: string;
  stop(): Promise<void>;
  /** Only on the v2 contract server. */
  v2?: V2ContractServer;
  /** Only on the real 0.4.2 server. */
  real?: SandboxAgentServer;
}

export interface ServerFactory {
  name: string;
  kind: "v1" | "v2";
  start(): Promise<TestServer>;
}

export const v2Factory: ServerFactory = {
  name: "v2 contract server",
  kind: "v2",
  start: async () => {
    const v2 = await startV2ContractServer({ mockChunkDelayMs: 20 });
    return { kind: "v2", baseUrl: v2.baseUrl, stop: () => v2.stop(), v2 };
  },
};

export const realFactory: ServerFactory = {
  name: "real sandbox-agent 0.4.2",
  kind: "v1",
  start: async () => {
    const real = await startSandboxAgent();
    return { kind: "v1", baseUrl: real.baseUrl, stop: () => real.stop(), real };
  },
};

export const BOTH: ServerFactory[] = [v2Factory, realFactory];

/**
 * For the enclosing describe block: starts `factory`'s server before its tests and stops it after
 * them; clients made with `client()` (agent `mock`) are disconnected after each test.
 */
export function serverWithClients(factory: ServerFactory): {
  server: () => TestServer;
  client: (options?: Partial<SandboxAgentClientOptions>) => SandboxAgentClient;
} {
  let server: TestServer;
  const clients: SandboxAgentClient[] = [];
  beforeAll(async () => {
    server = await factory.start();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    server: () => server,
    client: (options = {}) => {
      const created = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", ...options });
      clients.push(created);
      return created;
    },
  };
}

/** A `fetch` that records every request it sends (method, URL, body text). */
export interface RecordingFetch {
  fetch: typeof globalThis.fetch;
  requests: Array<{ method: string; url: string; body: string | undefined }>;
  rpcMethods(): string[];
}

export function recordingFetch(): RecordingFetch {
  const requests: RecordingFetch["requests"] = [];
  const wrapped: typeof globalThis.fetch = async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : String(input);
    const method = init?.method ?? request?.method ?? "GET";
    let body: string | undefined;
    if (typeof init?.body === "string") body = init.body;
    else if (request && request.body !== null) body = await request.clone().text();
    requests.push({ method, url, body });
    return globalThis.fetch(input, init);
  };
  return {
    fetch: wrapped,
    requests,
    rpcMethods: () =>
      requests.flatMap((r) => {
        if (!r.body || r.method !== "POST") return [];
        try {
          const parsed = JSON.parse(r.body) as { method?: unknown };
          return typeof parsed.method === "string" ? [parsed.method] : [];
        } catch {
          return [];
        }
      }),
  };
}

export function next<T>(source: Observable<T>, predicate: (value: T) => boolean = () => true, ms = 5000): Promise<T> {
  return firstValueFrom(source.pipe(filter(predicate), timeout(ms)));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects unhandled rejections while `run` executes (and a little after). */
export async function noUnhandledRejections(run: () => Promise<void>): Promise<unknown[]> {
  const seen = new Subject<unknown>();
  const list: unknown[] = [];
  const sub = seen.subscribe((reason) => list.push(reason));
  const listener = (reason: unknown): void => seen.next(reason);
  process.on("unhandledRejection", listener);
  try {
    await run();
    await sleep(100);
  } finally {
    process.off("unhandledRejection", listener);
    sub.unsubscribe();
  }
  return list;
}
