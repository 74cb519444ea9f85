// The official ACP SDK's server (`AcpServer`, @agentclientprotocol/sdk 2.4.0) with our test
// agent (spec/support/acp-sdk-agent.ts): Streamable HTTP and WebSocket on one loopback port,
// as its Node adapter wires them. A fourth server nobody on this project wrote.
//
// Extras for tests: an affinity cookie (set on every response and on the 101, then checked on
// every later request and upgrade), a log of what arrived, and two ways to lose a connection:
// `dropSockets()` cuts TCP only (the ACP connection survives server-side, as after a network
// blip) and `restart()` also replaces the AcpServer (every connection id is forgotten, as after
// a server restart; sessions stay loadable).
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer } from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { AcpServer, type AgentFactory } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { WebSocketServer } from "ws";
import { createTestAgent, newAgentLog, type AgentLog } from "./acp-sdk-agent.js";

export interface AcpSdkServerOptions {
  /** Set `name=value` on every response (and the 101) and record whether later requests bring it back. */
  cookie?: { name: string; value: string };
  /**
   * Serve HTTP/2 over TLS (ALPN `h2`, HTTP/1.1 still accepted) with the loopback certificate in
   * spec/support/tls (self-signed, for 127.0.0.1). Upgrades are HTTP/1.1 only, so no WebSocket.
   */
  http2?: boolean;
  /**
   * The agent behind each accepted connection (default: our v1 test agent, acp-sdk-agent.ts). Any of
   * the SDK's connectors: a v2 `AgentApp` (spec/support/acp-v2-agent.ts) or an `agentProtocolRouter`.
   */
  createAgent?: (log: AgentLog) => ReturnType<AgentFactory>;
}

const TLS_DIR = new URL("./tls/", import.meta.url);

/**
 * The SDK's Node adapter copies request headers into a fetch `Headers`, which refuses HTTP/2's
 * pseudo-headers (`:authority`, `:path`, ...) with a 500: hand it the request without them.
 */
function withoutPseudoHeaders(req: IncomingMessage): IncomingMessage {
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !name.startsWith(":")));
  headers.host ??= req.headers[":authority"] as string | undefined;
  const rawHeaders: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (!name.startsWith(":")) rawHeaders.push(name, req.rawHeaders[i + 1] as string);
  }
  Object.defineProperty(req, "headers", { value: headers, configurable: true });
  Object.defineProperty(req, "rawHeaders", { value: rawHeaders, configurable: true });
  return req;
}

/** One request as the loopback server saw it. */
export interface SeenRequest {
  readonly kind: "POST" | "GET" | "DELETE" | "UPGRADE" | "OTHER";
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `1.1` or `2.0`. */
  readonly httpVersion: string;
  /** Whether the `Cookie` header carried the affinity cookie. */
  readonly carriedCookie: boolean;
  /** Whether this request came after the server had set the cookie at least once. */
  readonly afterCookieSet: boolean;
}

export interface AcpSdkServer {
  /** `http://127.0.0.1:PORT`; HTTP and WebSocket both at `${baseUrl}/acp` (the path is not checked). */
  readonly baseUrl: string;
  /** `ws://127.0.0.1:PORT/acp`. */
  readonly wsUrl: string;
  readonly port: number;
  readonly log: AgentLog;
  readonly requests: readonly SeenRequest[];
  /** Requests made after the cookie was first set that did not carry it. */
  missingCookie(): SeenRequest[];
  /** Destroys every open TCP socket (HTTP keep-alive, SSE, WebSocket); ACP connections survive. */
  dropSockets(): void;
  /** Drops every socket and swaps in a fresh AcpServer: every connection id is unknown afterwards. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const cookieCarried = (req: IncomingMessage, cookie: AcpSdkServerOptions["cookie"]): boolean =>
  cookie !== undefined &&
  (req.headers.cookie ?? "").split(";").some((pair) => pair.trim() === `${cookie.name}=${cookie.value}`);

export async function startAcpSdkServer(options: AcpSdkServerOptions = {}): Promise<AcpSdkServer> {
  const log = newAgentLog();
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket | Duplex>();
  const setCookie = options.cookie ? `${options.cookie.name}=${options.cookie.value}; Path=/; HttpOnly` : undefined;
  let cookieSet = false;

  const makeAcp = (): { acp: AcpServer; http: ReturnType<typeof createNodeHttpHandler>; upgrade: Upgrade } => {
    const createAgent = options.createAgent ?? createTestAgent;
    const acp = new AcpServer({ createAgent: () => createAgent(log) });
    const webSocketServer = new WebSocketServer({ noServer: true });
    if (setCookie) {
      webSocketServer.on("headers", (headers: string[]) => {
        headers.push(`Set-Cookie: ${setCookie}`);
        cookieSet = true;
      });
    }
    return { acp, http: createNodeHttpHandler(acp), upgrade: createNodeWebSocketUpgradeHandler(acp, webSocketServer) };
  };
  type Upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  let current = makeAcp();

  const record = (req: IncomingMessage, kind: SeenRequest["kind"]): void => {
    requests.push({
      kind,
      headers: { ...req.headers },
      httpVersion: req.httpVersion,
      carriedCookie: cookieCarried(req, options.cookie),
      afterCookieSet: cookieSet,
    });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const kind = req.method === "POST" || req.method === "GET" || req.method === "DELETE" ? req.method : "OTHER";
    if (setCookie) {
      res.setHeader("Set-Cookie", setCookie);
      res.once("finish", () => (cookieSet = true));
    }
    record(req, kind);
    current.http(req, res);
  };
  const tls = () => ({
    key: readFileSync(new URL("loopback-key.pem", TLS_DIR)),
    cert: readFileSync(new URL("loopback-cert.pem", TLS_DIR)),
  });
  const server = options.http2
    ? createSecureServer({ ...tls(), allowHTTP1: true }, (req, res) =>
      handle(withoutPseudoHeaders(req as unknown as IncomingMessage), res as unknown as ServerResponse))
    : createServer(handle);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    record(req, "UPGRADE");
    current.upgrade(req, socket, head);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const dropSockets = (): void => {
    for (const socket of sockets) socket.destroy();
  };

  return {
    baseUrl: `${options.http2 ? "https" : "http"}://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/acp`,
    port,
    log,
    requests,
    missingCookie: () => requests.filter((r) => r.afterCookieSet && !r.carriedCookie),
    dropSockets,
    restart: async () => {
      const old = current;
      current = makeAcp();
      dropSockets();
      await old.acp.close();
    },
    stop: async () => {
      dropSockets();
      await current.acp.close();
      if ("closeAllConnections" in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

