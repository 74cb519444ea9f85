// What the qwen suites share: one `qwen serve` per describe block, and clients of it that are
// disconnected when the block ends, so no suite writes out its own start/stop hooks.
import { AcpHttpClient, RFD_PROFILE, type AcpHttpClientOptions } from "../../../lib/acp-http/index.js";
import { startQwenServe, type QwenServe, type QwenServeOptions } from "../../support/qwen-server.js";

// Generous: on a busy machine the daemon's ACP child can take a while to come up.
const START_TIMEOUT_MS = 60_000;

export type QwenClientOverrides = Partial<Omit<AcpHttpClientOptions, "baseUrl">> & { baseUrl?: string };

export interface QwenBlockOptions {
  /** How the block's server is started (`--token`, a shared model...). */
  serve?: QwenServeOptions;
  /** Applied to every client of the block, before a call's own overrides. */
  client?: QwenClientOverrides;
}

export interface QwenBlock {
  /** The block's server; it exists once the block's `beforeAll` ran. */
  server(): QwenServe;
  /** Options for a client of the server: the RFD profile, the block's client options, then `overrides`. */
  options(overrides?: QwenClientOverrides): AcpHttpClientOptions;
  /** A client made with `options(overrides)`, disconnected after the block. */
  connect(overrides?: QwenClientOverrides): AcpHttpClient;
  /** A client made elsewhere (by `reattach`), disconnected after the block too. */
  adopt(client: AcpHttpClient): AcpHttpClient;
}

/**
 * Starts a qwen serve before the enclosing `describe` block's tests and stops it after them, once
 * every client of the block is disconnected. qwen-code itself must be installed by an earlier hook
 * (`qwenCliEntry`), so a first install does not count against the start deadline.
 */
export function qwenForBlock(block: QwenBlockOptions = {}): QwenBlock {
  let started: QwenServe | undefined;
  const clients: AcpHttpClient[] = [];
  const server = (): QwenServe => {
    if (!started) throw new Error("qwen serve has not started");
    return started;
  };
  beforeAll(async () => {
    started = await startQwenServe({ startTimeoutMs: START_TIMEOUT_MS, ...block.serve });
  }, START_TIMEOUT_MS + 10_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.disconnect()));
    await started?.stop();
  }, 30_000);
  const options = (overrides: QwenClientOverrides = {}): AcpHttpClientOptions => ({
    baseUrl: server().baseUrl,
    ...RFD_PROFILE,
    ...block.client,
    ...overrides,
  });
  const adopt = (client: AcpHttpClient): AcpHttpClient => {
    clients.push(client);
    return client;
  };
  return { server, options, connect: (overrides) => adopt(new AcpHttpClient(options(overrides))), adopt };
}
