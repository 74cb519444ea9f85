/**
 * A loopback HTTP fault proxy for the reliability suite. Every request is forwarded to the
 * target unchanged; event-stream (SSE) responses are relayed chunk by chunk so that the proxy
 * can cut them after an exact number of body bytes (mid-frame included), pause and resume
 * them, or hold new stream GETs back until released.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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
  res: ServerResponse;
  upstream: IncomingMessage;
  sent: number;
  tail: string;
  budget: number | undefined;
  paused: boolean;
  buffered: Buffer[];
  cut(): void;
  flush(): void;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const relays = new Set<Relay>();
  const lastEventIds: (string | undefined)[] = [];
  const cuts: CutRecord[] = [];
  const held: (() => void)[] = [];
  let holding = false;
  let opened = 0;
  let completed = 0;
  let budgetSource: (() => number | undefined) | undefined;

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        const isStream = /text\/event-stream/i.test(String(answer.headers["content-type"] ?? ""));
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (!isStream) {
          answer.pipe(res);
          res.once("finish", () => completed++);
          return;
        }
        opened++;
        const relay: Relay = {
          res,
          upstream: answer,
          sent: 0,
          tail: "",
          budget: budgetSource?.(),
          paused: false,
          buffered: [],
          cut: () => {
            if (!relays.delete(relay)) return;
            cuts.push({ bytes: relay.sent, midFrame: relay.sent > 0 && !relay.tail.endsWith("\n\n") });
            answer.destroy();
            res.destroy();
          },
          flush: () => undefined,
        };
        relays.add(relay);
        res.flushHeaders();
        const write = (chunk: Buffer): void => {
          if (!relays.has(relay)) return;
          let piece = chunk;
          if (relay.budget !== undefined && relay.sent + piece.length >= relay.budget) {
            piece = piece.subarray(0, Math.max(0, relay.budget - relay.sent));
            if (piece.length > 0) res.write(piece);
            relay.sent += piece.length;
            relay.tail = (relay.tail + piece.toString("latin1")).slice(-2);
            relay.cut();
            return;
          }
          res.write(piece);
          relay.sent += piece.length;
          relay.tail = (relay.tail + piece.toString("latin1")).slice(-2);
        };
        if (relay.budget === 0) relay.cut();
        answer.on("data", (chunk: Buffer) => (relay.paused ? relay.buffered.push(chunk) : write(chunk)));
        answer.once("end", () => {
          if (relays.delete(relay)) res.end();
        });
        res.once("close", () => {
          relays.delete(relay);
          answer.destroy();
        });
        relay.flush = () => {
          const pending = relay.buffered.splice(0);
          for (const chunk of pending) write(chunk);
        };
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.once("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    if (req.method === "GET") {
      const header = req.headers["last-event-id"];
      lastEventIds.push(Array.isArray(header) ? header[0] : header);
      if (holding) {
        held.push(() => forward(req, res));
        return;
      }
    }
    forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    openStreams: () => relays.size,
    streamsOpened: () => opened,
    lastEventIds: () => [...lastEventIds],
    completedResponses: () => completed,
    cuts: () => [...cuts],
    setCutBudget: (budget) => {
      budgetSource = budget;
      // Streams already open take a budget too, counted from the bytes they have relayed so far.
      for (const relay of relays) {
        const next = budget?.();
        relay.budget = next === undefined ? undefined : relay.sent + next;
      }
    },
    cutStreams: () => {
      const all = [...relays];
      for (const relay of all) relay.cut();
      return all.length;
    },
    pauseStreams: () => {
      for (const relay of relays) relay.paused = true;
      return relays.size;
    },
    resumeStreams: () => {
      for (const relay of [...relays]) {
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
      for (const relay of [...relays]) relay.res.destroy();
      relays.clear();
      for (const go of held.splice(0)) go();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
