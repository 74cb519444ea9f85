/**
 * An in-process HTTP server that follows the "v2" ACP-over-HTTP contract
 * (/work/shared/contract/v2-acp-http.md), for tests that need a live sandbox-agent v2 peer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { isAgentId } from "./agents.js";
import { handleHealth, handleReadFile, handleUploadBatch, handleWriteFile } from "./control-plane.js";
import { CONNECTION_HEADER, headerValue, QueryRejection, sendEmpty, sendProblem, sendQueryRejection } from "./http-util.js";
import { HttpProblem, problems } from "./problem.js";
import { handleDelete, handleGet, handlePost } from "./rpc-routes.js";
import { Runtime } from "./runtime.js";
import type { Termination } from "./sessions.js";

export interface V2ContractServerOptions {
  /** §1.8: when set, every /v2 route needs `Authorization: Bearer <token>`. */
  token?: string;
  /** §1.5 replay ring per connection (default 2048). */
  ringSize?: number;
  /** §1.7 agent response timeout (default 120000). */
  requestTimeoutMs?: number;
  /** §1.2 CORS: the real server exposes no headers (default false). */
  corsExposeHeaders?: boolean;
  /** §7 delay between mock chunks (default 30). */
  mockChunkDelayMs?: number;
  /** §1.5 SSE heartbeat comment interval (default 15000). */
  heartbeatMs?: number;
  /** §4.3 $HOME for relative fs paths without a session (default os.homedir()). */
  home?: string;
  /**
   * Not in the contract: the SSE stream gets a writer task of its own, so pushed frames are written
   * this many ms later (0: after pending I/O) while POST answers go out at once, and an answer can
   * overtake the updates its turn wrote before it (as when a server feeds its streams from a
   * channel). Default: frames are written as they are pushed.
   */
  streamWriterDelayMs?: number;
}

export interface AgentExit {
  /** 0 ends sessions as completed; anything else as error (§4.4). Default 1. */
  exitCode?: number;
  stderr?: string;
}

export interface V2ContractServer {
  baseUrl: string;
  port: number;
  stop(): Promise<void>;
  /** Abruptly destroys every open SSE response socket, to exercise resume. */
  dropStreams(): void;
  /** Live connection ids. */
  connections(): string[];
  /** Pushes a raw runtime message onto a connection's stream (e.g. `_sandboxagent/agent/unparsed`). */
  emitToConnection(connId: string, envelope: object): void;
  /** Models the §4.4 (b) agent process exit: every live session of that agent ends. */
  killAgent(agent: string, exit?: AgentExit): void;
}

type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => unknown;

const positiveOr = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;

export async function startV2ContractServer(options: V2ContractServerOptions = {}): Promise<V2ContractServer> {
  const runtime = new Runtime({
    ringSize: positiveOr(options.ringSize, 2048),
    // §1.7: zero or unparsable values fall back to the default.
    requestTimeoutMs: positiveOr(options.requestTimeoutMs, 120_000),
    mockChunkDelayMs: Math.max(0, options.mockChunkDelayMs ?? 30),
    heartbeatMs: positiveOr(options.heartbeatMs, 15_000),
    home: options.home ?? homedir(),
    streamWriterDelayMs: options.streamWriterDelayMs,
  });
  const routes = buildRoutes(runtime);
  const server = createServer((req, res) => void dispatch(routes, options, req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    stop: () => stop(runtime, server),
    dropStreams: () => runtime.dropStreams(),
    connections: () => runtime.connectionIds(),
    emitToConnection: (connId, envelope) => runtime.connection(connId).push(Object.fromEntries(Object.entries(envelope))),
    killAgent: (agent, exit) => {
      if (!isAgentId(agent)) throw new Error(`unknown agent: ${agent}`);
      runtime.agentExited(agent, exitTermination(exit?.exitCode ?? 1, exit?.stderr ?? ""));
    },
  };
}

async function stop(runtime: Runtime, server: Server): Promise<void> {
  runtime.shutdown();
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** §4.4: head = first 20 and tail = last 50 lines when there are more than 70, else all in head. */
function exitTermination(exitCode: number, stderr: string): Termination {
  if (exitCode === 0) return { reason: "completed", terminatedBy: "agent" };
  const lines = stderr.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const truncated = lines.length > 70;
  const summary = truncated
    ? { head: lines.slice(0, 20).join("\n"), tail: lines.slice(-50).join("\n"), truncated, totalLines: lines.length }
    : { head: lines.join("\n"), truncated, totalLines: lines.length };
  const termination: Termination = {
    reason: "error",
    terminatedBy: "agent",
    message: `agent exited with status ${exitCode}`,
    exitCode,
  };
  // [inferred] No stderr captured means no stderr summary.
  if (lines.length > 0) termination.stderr = summary;
  return termination;
}

type RouteTable = Record<string, Partial<Record<string, Route>>>;

function buildRoutes(runtime: Runtime): RouteTable {
  return {
    "/v2/health": { GET: (_req, res) => handleHealth(res) },
    "/v2/rpc": {
      POST: (req, res) => handlePost(runtime, req, res),
      GET: (req, res) => handleGet(runtime, req, res),
      DELETE: (req, res) => handleDelete(runtime, req, res),
    },
    "/v2/fs/file": {
      GET: (_req, res, url) => handleReadFile(runtime, url, res),
      PUT: (req, res, url) => handleWriteFile(runtime, url, req, res),
    },
    "/v2/fs/upload-batch": { POST: (req, res, url) => handleUploadBatch(runtime, url, req, res) },
  };
}

/**
 * Known /v2 routes sit behind the token check; /v1 and the 404 fallback do not (§1.8 [uncertain]).
 * §8 /opencode and /ui are out of scope here ([uncertain] for /opencode anyway) and answer 404.
 */
function routeFor(routes: RouteTable, method: string, path: string): Route | undefined {
  const methods = routes[path];
  if (!methods) return undefined;
  return methods[method] ?? ((_req, res) => sendEmpty(res, 405, { allow: Object.keys(methods).join(", ") }));
}

async function dispatch(
  routes: RouteTable,
  options: V2ContractServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const method = req.method ?? "GET";
  try {
    if (applyCors(req, res, options.corsExposeHeaders ?? false)) return;
    if (url.pathname === "/v1" || url.pathname.startsWith("/v1/")) throw problems.v1Removed();
    const route = routeFor(routes, method, url.pathname);
    if (!route) throw problems.notFound();
    requireToken(req, options.token);
    await route(req, res, url);
  } catch (error) {
    fail(res, error);
  }
}

/** §1.8: exactly `Bearer <token>`; case-sensitive prefix, one space. */
function requireToken(req: IncomingMessage, token: string | undefined): void {
  if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) throw problems.tokenInvalid();
}

/**
 * §1.2 CORS: origins are allowed, but [inferred] no `expose_headers` by default, so a cross-origin
 * browser cannot read x-acp-connection-id unless `corsExposeHeaders` is set. Returns true for a
 * preflight, which is answered here.
 */
function applyCors(req: IncomingMessage, res: ServerResponse, exposeConnectionHeader: boolean): boolean {
  const origin = headerValue(req, "origin");
  if (origin === undefined) return false;
  res.setHeader("access-control-allow-origin", origin);
  res.setHeader("vary", "origin");
  if (exposeConnectionHeader) res.setHeader("access-control-expose-headers", CONNECTION_HEADER);
  if (req.method !== "OPTIONS" || headerValue(req, "access-control-request-method") === undefined) return false;
  res.setHeader("access-control-allow-methods", "GET, POST, PUT, DELETE, OPTIONS");
  res.setHeader("access-control-allow-headers", headerValue(req, "access-control-request-headers") ?? "*");
  sendEmpty(res, 200);
  return true;
}

function fail(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpProblem) sendProblem(res, error);
  else if (error instanceof QueryRejection) sendQueryRejection(res, error);
  // The error model has no generic 500 kind; an unexpected failure surfaces like an IO error (502).
  else sendProblem(res, problems.streamError(error instanceof Error ? error.message : String(error)));
}
