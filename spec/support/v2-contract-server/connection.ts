/** One ACP connection: its SSE sequence, replay ring and single stream slot (§1.5, §1.6). */
import type { ServerResponse } from "node:http";
import type { AgentId } from "./agents.js";
import { compact, type JsonObject } from "./json.js";
import { problems } from "./problem.js";
import type { Waiter } from "./waiter.js";

interface RingEntry {
  readonly id: number;
  readonly data: string;
}

/** §1.5 framing: `event: message`, the per-connection id, one compact `data:` line. */
function frame(entry: RingEntry): string {
  return `event: message\nid: ${entry.id}\ndata: ${entry.data}\n\n`;
}

export class SseStream {
  private open = true;
  private readonly heartbeat: NodeJS.Timeout;
  /** Frames waiting for the writer task (only with a `writerDelayMs`). */
  private queued: RingEntry[] = [];

  /**
   * `writerDelayMs` undefined: frames are written as they are pushed. Set: the stream has a writer
   * task of its own (as a server that feeds its SSE responses from a channel does), so frames wait
   * that long (0: until after pending I/O) while a POST answer written meanwhile goes out at once.
   */
  constructor(
    private readonly res: ServerResponse,
    heartbeatMs: number,
    onClose: () => void,
    private readonly writerDelayMs?: number,
  ) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    // §1.5: [uncertain] 15 s `heartbeat` comments, taken from the later router as the contract suggests.
    this.heartbeat = setInterval(() => this.res.write(": heartbeat\n\n"), heartbeatMs);
    this.heartbeat.unref();
    res.on("close", () => {
      this.open = false;
      clearInterval(this.heartbeat);
      onClose();
    });
  }

  write(entry: RingEntry): void {
    if (!this.open) return;
    if (this.writerDelayMs === undefined) {
      this.res.write(frame(entry));
      return;
    }
    this.queued.push(entry);
    if (this.queued.length > 1) return;
    const flush = () => {
      const entries = this.queued;
      this.queued = [];
      if (this.open) this.res.write(entries.map(frame).join(""));
    };
    if (this.writerDelayMs > 0) setTimeout(flush, this.writerDelayMs).unref();
    else setImmediate(flush);
  }

  end(): void {
    clearInterval(this.heartbeat);
    if (this.open) this.res.end(this.queued.map(frame).join(""));
    this.queued = [];
  }

  /** Test hook: an abrupt network failure rather than a clean end of stream. */
  destroy(): void {
    clearInterval(this.heartbeat);
    this.res.socket?.destroy();
  }
}

export class Connection {
  /** In-flight client requests keyed by the serialized client id (§1.2). */
  readonly pending = new Map<string, Waiter>();
  private sequence = 0;
  private readonly ring: RingEntry[] = [];
  private stream: SseStream | undefined;

  constructor(
    readonly id: string,
    readonly bootstrapAgent: AgentId,
    private readonly ringSize: number,
  ) {}

  /** §1.5: every message gets the next id and enters the ring, whether or not a stream is open. */
  push(message: JsonObject): void {
    const entry = { id: ++this.sequence, data: compact(message) };
    this.ring.push(entry);
    if (this.ring.length > this.ringSize) this.ring.shift();
    this.stream?.write(entry);
  }

  hasStream(): boolean {
    return this.stream !== undefined;
  }

  /** §1.5 replay: the whole ring without Last-Event-ID, else ids above it (older gaps are silent). */
  attach(res: ServerResponse, lastEventId: number | undefined, heartbeatMs: number, writerDelayMs?: number): void {
    const stream: SseStream = new SseStream(
      res,
      heartbeatMs,
      () => {
        if (this.stream === stream) this.stream = undefined;
      },
      writerDelayMs,
    );
    this.stream = stream;
    for (const entry of this.ring) if (lastEventId === undefined || entry.id > lastEventId) stream.write(entry);
  }

  dropStream(): void {
    this.stream?.destroy();
  }

  /** §1.6: in-flight POSTs fail with 502 and the stream ends. */
  close(): void {
    for (const waiter of this.pending.values()) waiter.fail(problems.streamError(WAITER_DROPPED));
    this.pending.clear();
    this.stream?.end();
    this.stream = undefined;
  }
}

/** §1.2: the error a POST sees when its response waiter is dropped. */
export const WAITER_DROPPED = "ACP agent process response channel closed";
