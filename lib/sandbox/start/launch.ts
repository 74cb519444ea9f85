// One call from nothing to a connected client: create (or find) a sandbox, wait until its server
// answers, connect. Whatever fails on the way tears down what this call created. Generic over the
// client it makes, so that `SandboxAgentClient.start` can use it without this module importing the
// client (`startSandbox` and `SandboxAgentClient.start`, in client.ts, are this with `new SandboxAgentClient`).
import type { ConnectInfo, SandboxAgentClientOptions } from "../types.js";
import { checkClientOptions } from "../client-options.js";
import { START_DEFAULTS } from "../defaults.js";
import { waitForHealth } from "../server/config/health.js";
import { ControlPlaneHttp } from "../server/control-plane.js";
import { CallAbortedError, CallTimeoutError, SandboxStartError, providerError } from "../errors.js";
import type { SandboxCallOptions, SandboxInfo, SandboxProvider } from "./provider-contract.js";

/** What `startSandbox` and `SandboxAgentClient.start` take: the provider, the agent, and the client's other options. */
export interface StartSandboxOptions extends Omit<SandboxAgentClientOptions, "baseUrl" | "autoConnect" | "agent"> {
  /** Who runs the server: `local()`, `docker()`, or a provider of your own. */
  sandbox: SandboxProvider;
  /** The agent to drive (`mock`, `claude`, ...). */
  agent: string;
  /** Reattach to this existing sandbox (`provider.reconnect`) instead of creating one. */
  sandboxId?: string;
  /** How long the server may take to answer `GET /v1/health` after `create`; default 30000 ms. */
  healthTimeoutMs?: number;
  /** Cancels the whole start; a sandbox created for it is destroyed. */
  signal?: AbortSignal;
}

/** What launching needs of a client: to connect and to disconnect. */
export interface Launchable {
  connect(): Promise<ConnectInfo>;
  disconnect(): Promise<void>;
}

/** A started sandbox: its connected client, and the means to tear both down. */
export interface Launched<Client extends Launchable> {
  /** Connected to the sandbox's server. `disconnect()` alone leaves the sandbox running. */
  readonly client: Client;
  readonly provider: SandboxProvider;
  /** Where the server answers (`id` is the provider's sandbox id). */
  readonly info: SandboxInfo;
  /** What `connect()` reported. */
  readonly connectInfo: ConnectInfo;
  /** Disconnects the client, then destroys the sandbox. Idempotent; safe after a lost connection. */
  destroy(options?: SandboxCallOptions): Promise<void>;
}

/**
 * Creates a sandbox with `options.sandbox`, waits (bounded backoff, abortable) for its server,
 * and connects a client to `options.agent`. On any failure the sandbox this call created is destroyed
 * and the error is rethrown (`SandboxStartError` when the server never became healthy).
 */
export async function launchSandbox<Client extends Launchable>(
  options: StartSandboxOptions,
  create: (options: SandboxAgentClientOptions) => Client,
): Promise<Launched<Client>> {
  const { sandbox: provider, sandboxId, healthTimeoutMs, signal, ...clientOptions } = options;
  // A wrong client option is a TypeError now, not after a sandbox was created (and destroyed) for nothing.
  checkClientOptions(clientOptions);
  if (signal?.aborted) throw new CallAbortedError("startSandbox was aborted", { cause: signal.reason });
  const created = sandboxId === undefined;
  const info = await obtain(provider, sandboxId, signal);
  let client: Client | undefined;
  try {
    await healthy(provider, info, healthTimeoutMs ?? START_DEFAULTS.healthTimeoutMs, signal);
    client = create({
      ...clientOptions,
      baseUrl: info.baseUrl,
      ...(clientOptions.token === undefined && info.token !== undefined ? { token: info.token } : {}),
      ...(clientOptions.fetch === undefined && info.fetch ? { fetch: info.fetch } : {}),
      ...(clientOptions.cwd === undefined && info.defaultCwd !== undefined ? { cwd: info.defaultCwd } : {}),
      autoConnect: false,
    });
    const connectInfo = await connectWithin(client, signal);
    return handle(provider, info, client, connectInfo);
  } catch (error) {
    await client?.disconnect().catch(() => undefined);
    if (created) await provider.destroy(info.id).catch(() => undefined);
    throw error;
  }
}

/** The shared health wait (backoff, bounded, abortable, fast failure on 401/403) against the sandbox. */
async function healthy(
  provider: SandboxProvider,
  info: SandboxInfo,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { baseUrl, token, fetch } = info;
  const http = new ControlPlaneHttp({ baseUrl, token, headers: undefined, fetch });
  try {
    const delays = START_DEFAULTS.healthDelays;
    await waitForHealth(http, { timeoutMs, ...(signal ? { signal } : {}), ...delays });
  } catch (error) {
    if (!(error instanceof CallTimeoutError)) throw error;
    const detail = `sandbox ${info.id} did not answer GET /v1/health within ${timeoutMs} ms`;
    throw new SandboxStartError(provider.name, "timeout", detail, "", { cause: error });
  }
}

async function obtain(
  provider: SandboxProvider,
  sandboxId: string | undefined,
  signal: AbortSignal | undefined,
): Promise<SandboxInfo> {
  const call = signal ? { signal } : {};
  if (sandboxId === undefined) return provider.create(call);
  if (!provider.reconnect) {
    throw providerError(provider.name, "reconnect", "this provider cannot reattach to an existing sandbox");
  }
  return provider.reconnect(sandboxId, call);
}

/** `client.connect()`, cancelled (via `disconnect()`) when `signal` aborts. */
async function connectWithin(client: Launchable, signal: AbortSignal | undefined): Promise<ConnectInfo> {
  if (!signal) return client.connect();
  const onAbort = (): void => void client.disconnect();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await client.connect();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function handle<Client extends Launchable>(
  provider: SandboxProvider,
  info: SandboxInfo,
  client: Client,
  connectInfo: ConnectInfo,
): Launched<Client> {
  let destroying: Promise<void> | undefined;
  return {
    client,
    provider,
    info,
    connectInfo,
    destroy(call?: SandboxCallOptions): Promise<void> {
      destroying ??= (async () => {
        await client.disconnect().catch(() => undefined);
        await provider.destroy(info.id, call);
      })();
      // A failed destroy may be retried.
      destroying.catch(() => (destroying = undefined));
      return destroying;
    },
  };
}
