/**
 * A loopback HTTP fault proxy for the reliability suite. Every request is forwarded to the
 * target unchanged; event-stream (SSE) responses are relayed chunk by chunk so that the proxy
 * can cut them after an exact number of body bytes (mid-frame included), pause and resume
 * them, or hold new stream GETs back until released. Built on spec/support/loopback-proxy.ts.
 */
import { afterAll, beforeAll } from "@jest/globals";
import { startLoopbackProxy, type OpenStream } from "../../support/loopback-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";

export interface CutRecord {
  /** Body bytes relayed on the stream before it was cut. */
  bytes: number;
  /** True when the relayed bytes did not end on a frame boundary (`\n\n`). */
  midFrame: boolean;
}

export interface FaultProxy {
  readonly baseUrl: string;
  /** SSE responses currently open through the proxy. */
  openStreams(): number;
  /** SSE responses opened so far. */
  streamsOpened(): number;
  /** `Last-Event-ID` of every stream GET forwarded so far, in order. */
  lastEventIds(): (string | undefined)[];
  /** Non-stream responses that have been relayed completely. */
  completedResponses(): number;
  /** Every cut made so far. */
  cuts(): CutRecord[];
  /**
   * Cut budgets for streams: each open stream, and each one opened later, takes the next value
   * from `budget()` and is destroyed after exactly that many more body bytes; `undefined` = no cut.
   */
  setCutBudget(budget: (() => number | undefined) | undefined): void;
  /** Destroys every open SSE response now. Returns how many. */
  cutStreams(): number;
  /** Stops relaying bytes on the open streams (the sockets stay open; data is buffered). */
  pauseStreams(): number;
  /** Relays what was buffered and carries on. */
  resumeStreams(): void;
  /** New stream GETs are held (not forwarded) until `releaseStreams()`. */
  holdStreams(): void;
  releaseStreams(): void;
  /** Stream GETs currently held back. */
  heldStreams(): number;
  stop(): Promise<void>;
}

interface Relay {
  sent: number;
  tail: string;
  budget: number | undefined;
  paused: boolean;
  buffered: Buffer[];
  flush(): void;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const lastEventIds: (string | undefined)[] = [];
  const cuts: CutRecord[] = [];
  const held: (() => void)[] = [];
  let holding = false;
  let opened = 0;
  let completed = 0;
  let budgetSource: (() => number | undefined) | undefined;

  const cut = (stream: OpenStream<Relay>): void => {
    const relay = stream.data;
    if (!proxy.streams.has(stream)) return;
    cuts.push({ bytes: relay.sent, midFrame: relay.sent > 0 && !relay.tail.endsWith("\n\n") });
    proxy.cut(stream);
  };

  const proxy = await startLoopbackProxy<Relay>(target, {
    onRequest: (req, forward) => {
      if (req.method === "GET") {
        const header = req.headers["last-event-id"];
        lastEventIds.push(Array.isArray(header) ? header[0] : header);
        if (holding) {
          held.push(forward);
          return;
        }
      }
      forward();
    },
    onResponse: (res) => {
      res.once("finish", () => completed++);
    },
    track: () => ({ sent: 0, tail: "", budget: budgetSource?.(), paused: false, buffered: [], flush: () => undefined }),
    relay: (stream) => {
      const { res, upstream: answer, data: relay } = stream;
      opened++;
      res.flushHeaders();
      const write = (chunk: Buffer): void => {
        if (!proxy.streams.has(stream)) return;
        let piece = chunk;
        if (relay.budget !== undefined && relay.sent + piece.length >= relay.budget) {
          piece = piece.subarray(0, Math.max(0, relay.budget - relay.sent));
          if (piece.length > 0) res.write(piece);
          relay.sent += piece.length;
          relay.tail = (relay.tail + piece.toString("latin1")).slice(-2);
          cut(stream);
          return;
        }
        res.write(piece);
        relay.sent += piece.length;
        relay.tail = (relay.tail + piece.toString("latin1")).slice(-2);
      };
      if (relay.budget === 0) cut(stream);
      answer.on("data", (chunk: Buffer) => (relay.paused ? relay.buffered.push(chunk) : write(chunk)));
      relay.flush = () => {
        const pending = relay.buffered.splice(0);
        for (const chunk of pending) write(chunk);
      };
    },
    onEnd: ({ res }) => {
      res.end();
    },
  });

  return {
    baseUrl: proxy.baseUrl,
    openStreams: () => proxy.streams.size,
    streamsOpened: () => opened,
    lastEventIds: () => [...lastEventIds],
    completedResponses: () => completed,
    cuts: () => [...cuts],
    setCutBudget: (budget) => {
      budgetSource = budget;
      // Streams already open take a budget too, counted from the bytes they have relayed so far.
      for (const { data: relay } of proxy.streams) {
        const next = budget?.();
        relay.budget = next === undefined ? undefined : relay.sent + next;
      }
    },
    cutStreams: () => {
      const all = [...proxy.streams];
      for (const stream of all) cut(stream);
      return all.length;
    },
    pauseStreams: () => {
      for (const { data: relay } of proxy.streams) relay.paused = true;
      return proxy.streams.size;
    },
    resumeStreams: () => {
      for (const { data: relay } of [...proxy.streams]) {
        relay.paused = false;
        relay.flush();
      }
    },
    holdStreams: () => (holding = true),
    releaseStreams: () => {
      holding = false;
      for (const go of held.splice(0)) go();
    },
    heldStreams: () => held.length,
    stop: async () => {
      for (const go of held.splice(0)) go();
      await proxy.stop();
    },
  };
}

export interface ServerBehindProxy {
  readonly server: SandboxAgentServer;
  readonly proxy: FaultProxy;
}

/**
 * For the enclosing file or describe block: a real server with the scripted agent and a fault
 * proxy in front of it, started before its tests and stopped after them.
 */
export function serverBehindFaultProxy(): ServerBehindProxy {
  let server: SandboxAgentServer | undefined;
  let proxy: FaultProxy | undefined;
  beforeAll(async () => {
    server = await startSandboxAgent();
    proxy = await startFaultProxy(server.baseUrl);
  });
  afterAll(async () => {
    await proxy?.stop();
    await server?.stop();
  });
  return {
    get server(): SandboxAgentServer {
      if (!server) throw new Error("the server is started in beforeAll");
      return server;
    },
    get proxy(): FaultProxy {
      if (!proxy) throw new Error("the proxy is started in beforeAll");
      return proxy;
    },
  };
}
