/**
 * The ACP runtime: connections, forwarding with id rewriting, §1.4 routing, and the registry side
 * effects of §5. HTTP concerns stay in rpc-routes.ts.
 */
import type { ServerResponse } from "node:http";
import { metaAgent, paramsAgent } from "./agent-selection.js";
import type { AgentBackend, AgentId } from "./agents.js";
import { Connection, WAITER_DROPPED } from "./connection.js";
import { injectExtensions } from "./ext-meta.js";
import { EXTENSION_NOTIFICATIONS, EXTENSION_REQUESTS } from "./extensions.js";
import { asObject, sandboxMeta, stringField, type JsonObject } from "./json.js";
import {
  errorResponse,
  hasId,
  isNotification,
  isRequest,
  methodOf,
  notification,
  resultResponse,
} from "./jsonrpc.js";
import { MockAgent } from "./mock-agent.js";
import { ModelCatalogs } from "./models.js";
import { problems } from "./problem.js";
import { endedParams, SessionRegistry, type SessionRecord, type Termination } from "./sessions.js";
import { StubAgent } from "./stub-agent.js";
import { byName, Subscriptions } from "./subscriptions.js";
import { Waiter } from "./waiter.js";

export interface RuntimeOptions {
  ringSize: number;
  requestTimeoutMs: number;
  mockChunkDelayMs: number;
  heartbeatMs: number;
  home: string;
  /** See `V2ContractServerOptions.streamWriterDelayMs`. */
  streamWriterDelayMs?: number | undefined;
}

export type PostOutcome = { kind: "response"; body: JsonObject } | { kind: "accepted" };

/** A client request on its way to an agent, under its `srv_req_<n>` id. */
interface ForwardedRequest {
  connId: string;
  clientId: unknown;
  key: string;
  method: string;
  params: unknown;
  agent: AgentId;
}

/** An agent request on SSE under its `agent_req_<n>` id. */
interface AgentRequestRoute {
  agent: AgentId;
  originalId: unknown;
  connId: string;
}

const SESSION_OPENERS = new Set(["session/new", "session/load", "session/resume", "session/fork"]);
const TIMEOUT_MESSAGE = "timed out waiting for ACP agent process response";

export class Runtime {
  readonly sessions = new SessionRegistry();
  readonly models = new ModelCatalogs();
  /** §4.2: the mock is always installed; the stand-ins become installed on first use (lazy install, §1.2). */
  readonly installed = new Set<AgentId>(["mock"]);
  private readonly connections = new Map<string, Connection>();
  private readonly backends = new Map<AgentId, AgentBackend>();
  private readonly subscriptions = new Subscriptions();
  private readonly forwarded = new Map<string, ForwardedRequest>();
  private readonly agentRequests = new Map<string, AgentRequestRoute>();
  private readonly runtimeWaiters = new Map<string, { agent: AgentId; waiter: Waiter }>();
  private readonly counters = { connection: 0, forwarded: 0, agentRequest: 0, runtimeRequest: 0 };

  constructor(readonly options: RuntimeOptions) {}

  // ---- connections -------------------------------------------------------------------------

  /**
   * §1.2 rows 9-12: the first POST creates the connection before initialize is forwarded.
   * [uncertain] If forwarding then fails, the connection stays registered, as in the runtime.
   */
  bootstrap(message: JsonObject): Connection {
    const method = methodOf(message);
    if (method === undefined) throw problems.invalidRequest("first ACP request must include method");
    if (method !== "initialize") throw problems.invalidRequest("first ACP request without client id must be initialize");
    const agent = metaAgent(method, message.params);
    this.backend(agent);
    const connection = new Connection(`acp_conn_${++this.counters.connection}`, agent, this.options.ringSize);
    this.connections.set(connection.id, connection);
    return connection;
  }

  connection(connId: string): Connection {
    const connection = this.connections.get(connId);
    if (!connection) throw problems.clientNotFound(connId);
    return connection;
  }

  connectionIds(): string[] {
    return [...this.connections.keys()];
  }

  /** §1.5: one active stream per connection. */
  openStream(connId: string, res: ServerResponse, lastEventId: number | undefined): void {
    const connection = this.connection(connId);
    if (connection.hasStream()) throw problems.conflict("ACP client already has an active SSE stream");
    connection.attach(res, lastEventId, this.options.heartbeatMs, this.options.streamWriterDelayMs);
  }

  /** §1.6: idempotent; sessions and agent processes survive. */
  close(connId: string): void {
    const connection = this.connections.get(connId);
    if (!connection) return;
    this.connections.delete(connId);
    connection.close();
    this.subscriptions.dropConnection(connId);
    for (const [id, route] of this.agentRequests) if (route.connId === connId) this.agentRequests.delete(id);
  }

  dropStreams(): void {
    for (const connection of this.connections.values()) connection.dropStream();
  }

  shutdown(): void {
    for (const connId of this.connectionIds()) this.close(connId);
    for (const { waiter } of this.runtimeWaiters.values()) waiter.fail(problems.streamError(WAITER_DROPPED));
    this.runtimeWaiters.clear();
  }

  // ---- client → runtime ----------------------------------------------------------------------

  async post(connection: Connection, message: JsonObject): Promise<PostOutcome> {
    const method = methodOf(message);
    if (method === undefined) {
      this.answerAgentRequest(connection, message);
      return { kind: "accepted" };
    }
    if (hasId(message)) return { kind: "response", body: await this.request(connection, method, message) };
    await this.notify(connection, method, message);
    return { kind: "accepted" };
  }

  private async request(connection: Connection, method: string, message: JsonObject): Promise<JsonObject> {
    const handler = EXTENSION_REQUESTS.get(method);
    if (handler) return resultResponse(message.id, await handler(this, connection, message.params));
    // §5/§6: session/list requests never reach the agent.
    if (method === "session/list") return resultResponse(message.id, this.sessions.listPage(message.params));
    return this.forwardRequest(connection, method, message);
  }

  private async notify(connection: Connection, method: string, message: JsonObject): Promise<void> {
    const handler = EXTENSION_NOTIFICATIONS.get(method);
    if (handler) {
      await handler(this, connection, message.params);
      return;
    }
    const agent = this.selectAgent(method, message.params);
    this.beforeForward(connection, agent, method, message.params);
    await this.backend(agent).send(message);
  }

  /** §1.3, rules 1-4. The connection's bootstrap agent is never a fallback. */
  private selectAgent(method: string, params: unknown): AgentId {
    if (method === "initialize" || method === "session/new") return metaAgent(method, params);
    const sessionId = stringField(params, "sessionId");
    const known = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (known) return known.agent;
    const explicit = paramsAgent(params);
    if (explicit) return explicit;
    throw problems.invalidRequest(
      sessionId === undefined
        ? `${method} requires params.agent when params.sessionId is absent`
        : `${method} requires params.agent when sessionId '${sessionId}' is unknown`,
    );
  }

  /** §1.4 subscription, §6 prompt ownership and §5 hints recorded before the agent sees the message. */
  private beforeForward(connection: Connection, agent: AgentId, method: string, params: unknown): void {
    const sessionId = stringField(params, "sessionId");
    if (sessionId === undefined) return;
    this.subscriptions.subscribe(sessionId, connection.id);
    if (method === "session/prompt") this.subscriptions.setPromptOwner(sessionId, connection.id);
    if (method === "session/cancel") this.subscriptions.clearPromptOwner(sessionId);
    const record = this.sessions.get(sessionId);
    const modelId = stringField(params, "modelId");
    const modeId = stringField(params, "modeId");
    if (method === "session/set_model" && modelId !== undefined) {
      if (record) this.sessions.setModel(record, modelId);
      this.models.setCurrent(agent, modelId);
    }
    if (method === "session/set_mode" && modeId !== undefined && record) this.sessions.setMode(record, modeId);
  }

  /** §1.2: ids become `srv_req_<n>`; waiters are keyed per connection by the serialized client id. */
  private forwardRequest(connection: Connection, method: string, message: JsonObject): Promise<JsonObject> {
    const agent = this.selectAgent(method, message.params);
    this.beforeForward(connection, agent, method, message.params);
    const backend = this.backend(agent);
    const key = JSON.stringify(message.id);
    const waiter = new Waiter(this.options.requestTimeoutMs, () => problems.timeout(TIMEOUT_MESSAGE));
    // A duplicate in-flight id replaces the earlier waiter, whose POST then fails with 502.
    connection.pending.get(key)?.fail(problems.streamError(WAITER_DROPPED));
    connection.pending.set(key, waiter);
    const srvId = `srv_req_${++this.counters.forwarded}`;
    this.forwarded.set(srvId, { connId: connection.id, clientId: message.id, key, method, params: message.params, agent });
    backend.send({ ...message, id: srvId }).catch((error: unknown) => waiter.fail(problems.streamError(String(error))));
    return waiter.promise;
  }

  /** §1.2: the client answers an `agent_req_<n>` on the connection it was sent to. */
  private answerAgentRequest(connection: Connection, message: JsonObject): void {
    const id = message.id;
    const route = typeof id === "string" ? this.agentRequests.get(id) : undefined;
    if (typeof id !== "string" || !route) {
      throw problems.invalidRequest("JSON-RPC response id does not match any pending ACP agent request");
    }
    if (route.connId !== connection.id) {
      throw problems.permissionDenied("ACP agent request response posted by non-target client");
    }
    this.agentRequests.delete(id);
    void this.backend(route.agent).send({ ...message, id: route.originalId });
  }

  // ---- agents --------------------------------------------------------------------------------

  hasBackend(agent: AgentId): boolean {
    return this.backends.has(agent);
  }

  /** One shared backend per agent id (§1.3), created on first use. */
  backend(agent: AgentId): AgentBackend {
    const existing = this.backends.get(agent);
    if (existing) return existing;
    const sink = (message: JsonObject): void => this.fromAgent(agent, message);
    const created = agent === "mock" ? new MockAgent(sink, this.options.mockChunkDelayMs) : new StubAgent(agent, sink);
    this.backends.set(agent, created);
    this.installed.add(agent);
    return created;
  }

  /** A runtime-originated request (`runtime_req_<n>`, e.g. model/list for §4.1). */
  async runtimeRequest(agent: AgentId, method: string, params: unknown): Promise<JsonObject> {
    const id = `runtime_req_${++this.counters.runtimeRequest}`;
    const waiter = new Waiter(this.options.requestTimeoutMs, () => problems.timeout(TIMEOUT_MESSAGE));
    this.runtimeWaiters.set(id, { agent, waiter });
    this.backend(agent)
      .send({ jsonrpc: "2.0", id, method, params })
      .catch((error: unknown) => waiter.fail(problems.streamError(String(error))));
    try {
      return await waiter.promise;
    } finally {
      this.runtimeWaiters.delete(id);
    }
  }

  private fromAgent(agent: AgentId, message: JsonObject): void {
    if (isRequest(message)) this.routeAgentRequest(agent, message);
    else if (isNotification(message)) this.routeAgentNotification(agent, message);
    else this.routeAgentResponse(message);
  }

  private routeAgentResponse(message: JsonObject): void {
    const id = message.id;
    if (typeof id !== "string") return;
    const forwarded = this.forwarded.get(id);
    if (forwarded) {
      this.forwarded.delete(id);
      this.completeForwarded(forwarded, message);
      return;
    }
    this.runtimeWaiters.get(id)?.waiter.resolve(message);
  }

  private completeForwarded(route: ForwardedRequest, message: JsonObject): void {
    const response = { ...message, id: route.clientId };
    this.observeResponse(route, response);
    const connection = this.connections.get(route.connId);
    if (!connection) return;
    const waiter = connection.pending.get(route.key);
    if (!waiter) {
      connection.push(response); // §1.2 orphan case: no waiter left, so the stream gets it
      return;
    }
    connection.pending.delete(route.key);
    waiter.resolve(response);
  }

  /** §3 injection and catalogs, §5 upserts, §6 prompt ownership, §5 eventCount. */
  private observeResponse(route: ForwardedRequest, response: JsonObject): void {
    const result = response.result;
    if (route.method === "initialize") injectExtensions(result);
    this.models.observeResponse(route.agent, result);
    const sessionId = stringField(route.params, "sessionId");
    if (route.method === "session/prompt" && sessionId !== undefined) {
      this.subscriptions.clearPromptOwner(sessionId, route.connId);
    }
    const record = SESSION_OPENERS.has(route.method)
      ? this.openSession(route, result)
      : sessionId === undefined
        ? undefined
        : this.sessions.get(sessionId);
    if (record) this.sessions.recordEvent(record);
  }

  /**
   * §5: upsert and subscribe. load/resume/fork fall back to the requested id (so a failed load still
   * upserts) and reset cwd to `/` without `params.cwd`. [inferred] load and resume copy the captured
   * `_meta` like session/new, since only fork is called out as copying none.
   */
  private openSession(route: ForwardedRequest, result: unknown): SessionRecord | undefined {
    const requested = route.method === "session/new" ? undefined : stringField(route.params, "sessionId");
    const sessionId = stringField(result, "sessionId") ?? requested;
    if (sessionId === undefined) return undefined;
    const captured = route.method === "session/fork" ? undefined : sandboxMeta(route.params);
    const record = this.sessions.upsert(sessionId, route.agent, stringField(route.params, "cwd") ?? "/", captured);
    if (this.connections.has(route.connId)) this.subscriptions.subscribe(sessionId, route.connId);
    return record;
  }

  /** §1.4: with a sessionId to its subscribers, otherwise to connections bootstrapped with this agent. */
  private routeAgentNotification(agent: AgentId, message: JsonObject): void {
    const params = message.params;
    const sessionId = stringField(params, "sessionId");
    if (sessionId === undefined) {
      for (const connection of this.connections.values()) if (connection.bootstrapAgent === agent) connection.push(message);
      return;
    }
    const record = this.sessions.ensure(sessionId, agent);
    if (message.method === "session/update") this.sessions.applyAgentUpdate(record, asObject(params)?.update);
    this.sessions.recordEvent(record);
    this.pushToSubscribers(sessionId, message);
  }

  /** §1.4: exactly one target, else the runtime answers the agent with -32001. */
  private routeAgentRequest(agent: AgentId, message: JsonObject): void {
    const target = this.requestTarget(agent, stringField(message.params, "sessionId"));
    if (!target) {
      void this.backend(agent).send(errorResponse(message.id, -32001, "no attached ACP client for session request"));
      return;
    }
    const id = `agent_req_${++this.counters.agentRequest}`;
    this.agentRequests.set(id, { agent, originalId: message.id, connId: target.id });
    target.push({ ...message, id });
  }

  private requestTarget(agent: AgentId, sessionId: string | undefined): Connection | undefined {
    if (sessionId !== undefined) {
      const owner = this.subscriptions.promptOwner(sessionId);
      const candidates = [...(owner === undefined ? [] : [owner]), ...this.subscriptions.subscribers(sessionId)];
      for (const connId of candidates) {
        const connection = this.connections.get(connId);
        if (connection) return connection;
      }
    }
    const fallback = this.connectionIds()
      .sort(byName)
      .find((connId) => this.connections.get(connId)?.bootstrapAgent === agent);
    return fallback === undefined ? undefined : this.connections.get(fallback);
  }

  pushToSubscribers(sessionId: string, message: JsonObject): void {
    for (const connId of this.subscriptions.subscribers(sessionId)) this.connections.get(connId)?.push(message);
  }

  // ---- session lifecycle (used by the extension handlers) ------------------------------------

  detach(connection: Connection, sessionId: string): void {
    this.subscriptions.detach(sessionId, connection.id);
  }

  requireSession(sessionId: string): SessionRecord {
    const record = this.sessions.get(sessionId);
    if (!record) throw problems.clientNotFound(sessionId);
    return record;
  }

  /** §4.1 terminate: cancel first, so subscribers see "cancelled" before the ended notification. */
  async terminate(sessionId: string): Promise<JsonObject> {
    const record = this.sessions.get(sessionId);
    const terminated = record !== undefined && !record.ended;
    if (record && terminated) {
      await this.backend(record.agent).send(notification("session/cancel", { sessionId }));
      this.subscriptions.clearPromptOwner(sessionId);
      this.endSession(record, { reason: "terminated", terminatedBy: "daemon" });
    }
    return { terminated, alreadyEnded: !terminated, reason: "terminated", terminatedBy: "daemon" };
  }

  /** §4.4: marks the registry and tells the current subscribers only. */
  endSession(record: SessionRecord, termination: Termination): void {
    this.sessions.markEnded(record, termination);
    this.pushToSubscribers(
      record.sessionId,
      notification("_sandboxagent/session/ended", endedParams(record.sessionId, termination)),
    );
  }

  /**
   * §4.4 (b): an agent process exit ends each of its live sessions, and pending runtime requests
   * see -32000 internally. Pending client requests are left to time out (§1.7). The in-process
   * backend itself is kept: there is no process to respawn.
   */
  agentExited(agent: AgentId, termination: Termination): void {
    for (const record of this.sessions.all()) {
      if (record.agent === agent && !record.ended) this.endSession(record, termination);
    }
    for (const [id, entry] of this.runtimeWaiters) {
      if (entry.agent === agent) entry.waiter.resolve(errorResponse(id, -32000, "ACP agent backend exited"));
    }
  }
}
