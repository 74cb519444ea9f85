import { withKnownAgents } from "../error-hints.js";
import { ServerConfig, inspectorUrl, waitForHealth, type HealthWaitResult } from "./config/index.js";
import type { CallOptions, CallSignal } from "../call-options.js";
import { Bound } from "../deadline.js";
import type { ControlPlaneHttp } from "./control-plane.js";
import type { AgentInfo, AgentQueryOptions, Health, InstallOptions, InstallResult } from "./control-schemas.js";
import type { ServerConnection } from "./control-schemas.js";
import type { ControlRoutes, ExtensionChannel } from "./control-routes.js";
import { Desktop } from "./desktop/index.js";
import { fileSystem, type FileSystem } from "./file-system.js";
import { Processes } from "./processes/index.js";
import type { ServerContract } from "./server-contract.js";
import type { HealthWaitBounds, SandboxAgentClientOptions } from "../types.js";

/**
 * The client's control-plane part: the server's own routes, which need no agent connection on the
 * released server (health, agents, connections, filesystem, processes, desktop, MCP/skills config).
 * On a v2 server the agent and filesystem routes are extensions sent over the live connection (the
 * `ExtensionChannel`, which the client's `ConnectionLifecycle` is). Every method takes `{ signal, timeoutMs }`.
 */
export class ServerRoutes {
  /** The server's process API: commands, processes, logs and terminals (no connection needed). */
  readonly processes: Processes;
  /** The sandbox's virtual desktop: screen, input, windows, clipboard, recordings (released server). */
  readonly desktop: Desktop;
  /** Per-directory MCP server and skills entries (released server; no connection needed). */
  readonly config: ServerConfig;
  /** The server's filesystem (paths are the server's; relative ones resolve against its `$HOME`). */
  readonly fs: FileSystem;

  /** The HTTP client of the control plane (base URL, token, headers, fetch). */
  readonly http: ControlPlaneHttp;
  /** Which server contract (v1, v2) answers, asked once. */
  readonly contract: ServerContract;
  readonly #options: SandboxAgentClientOptions;
  readonly #channel: ExtensionChannel;

  /** `contract` is shared with the lifecycle (which connects by it); `channel` carries v2's extension routes. */
  constructor(options: SandboxAgentClientOptions, contract: ServerContract, channel: ExtensionChannel) {
    this.#options = options;
    this.contract = contract;
    this.#channel = channel;
    const { baseUrl, token, headers, fetch } = options;
    const settings = { baseUrl, token, headers, fetch };
    this.http = contract.http;
    this.processes = new Processes(this.http, settings, { WebSocket: options.WebSocket });
    this.desktop = new Desktop(this.http, { baseUrl });
    this.config = new ServerConfig(this.http);
    this.fs = fileSystem((operation, call, run) => this.#route(operation, call, run));
  }

  /**
   * Runs a control-plane call on the routes of the server's contract: the call's boundary. Its
   * `{ signal, timeoutMs }` become one signal here, which covers asking the server for its contract
   * too; a failure to ask is reported as this call's (`operation`).
   */
  async #route<T>(
    operation: string,
    call: CallOptions | undefined,
    run: (routes: ControlRoutes, call: CallSignal) => Promise<T>,
  ): Promise<T> {
    // A negative or NaN deadline is a TypeError before anything is sent; none (or too long) stays none.
    const bound = new Bound(operation, call);
    try {
      return await run(await this.contract.routes(operation, this.#channel, bound.call), bound.call);
    } finally {
      bound.dispose();
    }
  }

  health(call?: CallOptions): Promise<Health> {
    return this.#route("health", call, (routes, rest) => routes.health(rest));
  }

  /**
   * The server's agents; `config: true` adds each one's `configOptions` (or `configError`),
   * `noCache: true` makes the server look again. Both are released-server options.
   */
  listAgents(options: AgentQueryOptions & CallOptions = {}): Promise<AgentInfo[]> {
    const { config, noCache, ...call } = options;
    return this.#route("listAgents", call, (routes, rest) => routes.listAgents({ config, noCache }, rest));
  }

  /** One agent (a 400 `SandboxAgentHttpError` of kind `unsupported_agent` for an unknown id, listing the known). */
  async getAgent(agentId: string, options: AgentQueryOptions & CallOptions = {}): Promise<AgentInfo> {
    const { config, noCache, ...call } = options;
    try {
      return await this.#route("getAgent", call, (routes, rest) => routes.getAgent(agentId, { config, noCache }, rest));
    } catch (error) {
      throw await withKnownAgents(error, this.#knownAgents);
    }
  }

  async installAgent(agentId: string, options: InstallOptions = {}, call?: CallOptions): Promise<InstallResult> {
    try {
      return await this.#route("installAgent", call, (routes, rest) => routes.installAgent(agentId, options, rest));
    } catch (error) {
      throw await withKnownAgents(error, this.#knownAgents);
    }
  }

  /** The ids of the agents the server knows, for the message of an unknown one. */
  readonly #knownAgents = async (signal: AbortSignal): Promise<string[]> =>
    (await this.listAgents({ signal })).map((agent) => agent.id);

  /** The agent processes the server runs now, one per connection (released server: `GET /v1/acp`). */
  listConnections(call?: CallOptions): Promise<ServerConnection[]> {
    return this.#route("listConnections", call, (routes, rest) => routes.listConnections(rest));
  }

  /**
   * Waits, with doubling pauses, until the server's health route answers ok: a server in a sandbox
   * often starts after its client. 401/403 end it at once; `CallTimeoutError` after `timeoutMs`
   * (default 30 s). A v2 server's 410 on `/v1/health` counts as up (the contract is detected later).
   */
  waitForHealth(options: HealthWaitBounds & CallOptions = {}): Promise<HealthWaitResult> {
    const path = this.contract.given === "v2" ? "/v2/health" : "/v1/health";
    return waitForHealth(this.http, { path, upStatuses: [410], ...options });
  }

  /** The server's inspector UI (`/ui/`) with this client's token and headers in its query: a secret. */
  inspectorUrl(): Promise<string> {
    const { baseUrl, token, headers } = this.#options;
    return inspectorUrl({ baseUrl, token, headers });
  }
}
