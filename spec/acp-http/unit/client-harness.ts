import { jest } from "@jest/globals";
import { AcpHttpClient, isResponse, type AcpEnvelope, type AcpHttpClientOptions, type AcpLogger } from "../../../lib/acp-http/index.js";
import { FakeAcpServer, bodyOf, rpcResult, accepted, type FakeAcpServerOptions, type FakeSseStream, type RecordedRequest } from "../../support/fake-acp-server.js";
import { SANDBOX_AGENT_V2 } from "../../support/sandbox-agent-transport.js";

export const BASE_URL = "http://agent.test";
export const CONNECTION_ID = "acp_conn_1";

export interface LogLine {
  level: "debug" | "warn";
  message: string;
  details: Record<string, unknown> | undefined;
}

export interface Harness {
  server: FakeAcpServer;
  client: AcpHttpClient;
  /** Every envelope the client delivered on `envelopes$`, in order. */
  envelopes: AcpEnvelope[];
  logs: LogLine[];
}

const live: AcpHttpClient[] = [];

/**
 * A client wired to a fresh fake server that issues `CONNECTION_ID` and, unless the
 * test says otherwise, answers `initialize` inline and accepts everything else with 202.
 * Reconnects wait 1 ms, without jitter, so that tests stay fast and exact.
 */
export function createHarness(options: Partial<AcpHttpClientOptions> = {}, serverOptions: FakeAcpServerOptions = { connectionId: CONNECTION_ID }): Harness {
  const server = new FakeAcpServer(serverOptions);
  server.onPost = (request) => {
    const message = bodyOf(request);
    if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 1 });
    return accepted();
  };
  const logs: LogLine[] = [];
  const logger: AcpLogger = {
    debug: (message, details) => logs.push({ level: "debug", message, details }),
    warn: (message, details) => logs.push({ level: "warn", message, details }),
  };
  const client = new AcpHttpClient({
    baseUrl: BASE_URL,
    // The fake answers as sandbox-agent's v2 contract does, unless a test passes other values.
    ...SANDBOX_AGENT_V2,
    fetch: server.fetch,
    logger,
    reconnect: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetries: 3 },
    ...options,
  });
  const envelopes: AcpEnvelope[] = [];
  client.envelopes$.subscribe((envelope) => envelopes.push(envelope));
  live.push(client);
  return { server, client, envelopes, logs };
}

/** Moves a fake clock forward (e.g. `(ms) => jest.advanceTimersByTimeAsync(ms)`). */
export type AdvanceClock = (ms: number) => Promise<unknown>;

/**
 * Runs `initialize` (answered inline by default) and returns the connection's event
 * stream. Under a fake clock, pass `advance`: the inline answer is delivered on a timer.
 */
export async function bootstrap(harness: Harness, advance?: AdvanceClock): Promise<FakeSseStream> {
  const initialize = harness.client.initialize();
  if (advance) {
    const state = watch(initialize);
    for (let step = 0; step < 1000 && !state.settled; step++) await advance(5);
  }
  await initialize;
  const stream = await harness.server.stream(1);
  await settle();
  return stream;
}

/** Closes every client the harness made (call from `afterEach`). */
export async function disconnectAll(): Promise<void> {
  const clients = live.splice(0);
  await Promise.all(clients.map((client) => client.disconnect()));
}

/** Lets pending promise chains and stream reads run: a few turns of the event loop. */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, without letting its rejection go unhandled. */
export function watch<T>(promise: Promise<T>): { readonly settled: boolean; readonly value: T | undefined; readonly error: unknown } {
  const state: { settled: boolean; value: T | undefined; error: unknown } = { settled: false, value: undefined, error: undefined };
  promise.then(
    (value) => {
      state.settled = true;
      state.value = value;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

/** The JSON-RPC id of a recorded POST. */
export function idOf(request: RecordedRequest): unknown {
  return bodyOf(request).id;
}

/** Responses among the delivered envelopes, by id. */
export function responsesWithId(envelopes: readonly AcpEnvelope[], id: unknown): AcpEnvelope[] {
  return envelopes.filter((envelope) => isResponse(envelope) && envelope.id === id);
}

export function notification(n: number): { jsonrpc: "2.0"; method: string; params: Record<string, unknown> } {
  return {
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${n}` } } },
  };
}

export function result(id: unknown, value: unknown): { jsonrpc: "2.0"; id: unknown; result: unknown } {
  return { jsonrpc: "2.0", id, result: value };
}

export const PROMPT = { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] };

/** Fake timers for the clocks the client reads; the event loop itself keeps running. */
export function useFakeClock(): void {
  jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask", "setImmediate"] });
}

export const advance = (ms: number): Promise<unknown> => jest.advanceTimersByTimeAsync(ms);
