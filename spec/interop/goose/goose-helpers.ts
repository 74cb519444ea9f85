// What the goose suites share: clients with goose's secret, and readers for a session's updates.
import { filter, firstValueFrom } from "rxjs";
import WebSocket from "ws";
import {
  AcpHttpClient,
  RFD_PROFILE,
  isNotification,
  type AcpEnvelope,
  type AcpHttpClientOptions,
} from "../../../lib/acp-http/index.js";
import { startGooseServe, type GooseServe } from "./goose-server.js";

interface UpdateParams {
  sessionId?: string;
  update?: { sessionUpdate?: string; content?: { text?: string } };
}

const isChunk = (e: AcpEnvelope, sessionId: string): boolean => {
  if (!isNotification(e) || e.method !== "session/update") return false;
  const params = e.params as UpdateParams;
  return params.sessionId === sessionId && params.update?.sessionUpdate === "agent_message_chunk";
};

/** The text of each agent_message_chunk of `sessionId` among `all`. */
export const chunks = (all: readonly AcpEnvelope[], sessionId: string): string[] =>
  all.filter((e) => isChunk(e, sessionId)).map((e) => (e.params as UpdateParams).update?.content?.text ?? "");

/** Resolves with the session's next agent_message_chunk. */
export const firstChunk = (client: AcpHttpClient, sessionId: string): Promise<AcpEnvelope> =>
  firstValueFrom(client.envelopes$.pipe(filter((e) => isChunk(e, sessionId))));

/** Every envelope the client receives from now on, until `stop()`. */
export function record(client: AcpHttpClient): { all: AcpEnvelope[]; stop: () => void } {
  const all: AcpEnvelope[] = [];
  const sub = client.envelopes$.subscribe((e) => all.push(e));
  return { all, stop: () => sub.unsubscribe() };
}

export type Overrides = Partial<Omit<AcpHttpClientOptions, "baseUrl">> & { baseUrl?: string };

/**
 * One goose serve for the enclosing `describe` block (started before its tests, stopped after them,
 * with every client made by `connect`), and a client factory for it: the RFD profile, goose's secret
 * header (on the WebSocket upgrade too: `ws` sends headers), `ws` as the WebSocket.
 */
export function gooseForBlock(): { server: () => GooseServe; connect: (overrides?: Overrides) => AcpHttpClient } {
  let started: GooseServe | undefined;
  const clients: AcpHttpClient[] = [];
  const server = (): GooseServe => {
    if (!started) throw new Error("goose serve has not started");
    return started;
  };
  beforeAll(async () => {
    started = await startGooseServe();
  }, 40_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.disconnect()));
    await started?.stop();
  }, 30_000);
  const connect = (overrides: Overrides = {}): AcpHttpClient => {
    const { headers, ...rest } = overrides;
    const client = new AcpHttpClient({
      baseUrl: server().baseUrl,
      ...RFD_PROFILE,
      WebSocket,
      ...rest,
      headers: { ...server().authHeaders, ...headers },
    });
    clients.push(client);
    return client;
  };
  return { server, connect };
}

/** Opens a session in the server's workspace; returns its id. */
export async function openSession(client: AcpHttpClient, server: GooseServe): Promise<string> {
  if (client.state === "idle") await client.initialize();
  return (await client.newSession({ cwd: server.workspace, mcpServers: [] })).sessionId;
}
