import { normalizeTimeout } from "../internal/abort.js";
import type { WebSocketWatchdogPolicy } from "../internal/backoff.js";
import type { WebSocketLike } from "../internal/web-socket.js";

export interface NormalizedWatchdogPolicy {
  heartbeatMs: number | undefined;
  idleTimeoutMs: number | undefined;
}

const DEFAULT_HEARTBEAT_MS = 15_000;

export function normalizeWatchdogPolicy(policy: WebSocketWatchdogPolicy = {}): NormalizedWatchdogPolicy {
  const heartbeatMs = normalizeTimeout(policy.heartbeatMs, "reconnect.webSocket.heartbeatMs") ?? DEFAULT_HEARTBEAT_MS;
  return {
    heartbeatMs: heartbeatMs === 0 ? undefined : heartbeatMs,
    idleTimeoutMs: normalizeTimeout(policy.idleTimeoutMs, "reconnect.webSocket.idleTimeoutMs"),
  };
}

/** `ws` sockets: protocol pings, and pongs as an event (not on the standard interface). */
interface PingingSocket {
  ping(): void;
  on(event: "pong", listener: () => void): void;
}

const canPing = (socket: WebSocketLike): socket is WebSocketLike & PingingSocket =>
  typeof (socket as Partial<PingingSocket>).ping === "function" &&
  typeof (socket as Partial<PingingSocket>).on === "function";

/**
 * Watches one open socket. Frames only set a flag (`heard`): the clock is read once per
 * heartbeat, never per message. A stall is reported once; the owner then drops the socket.
 */
export class SocketWatchdog {
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #socket: (WebSocketLike & PingingSocket) | undefined;
  readonly #idleMs: number;
  readonly #busy: () => boolean;
  readonly #onStall: (silentMs: number) => void;
  #heard = false;
  #quietSince = Date.now();

  /** Starts watching, or returns undefined when the policy has nothing to watch on this socket. */
  static start(
    socket: WebSocketLike,
    policy: NormalizedWatchdogPolicy | undefined,
    busy: () => boolean,
    onStall: (silentMs: number) => void,
  ): SocketWatchdog | undefined {
    const { heartbeatMs, idleTimeoutMs } = policy ?? {};
    if (heartbeatMs === undefined) return undefined;
    const pings = canPing(socket);
    if (!pings && idleTimeoutMs === undefined) return undefined;
    return new SocketWatchdog(socket, pings, heartbeatMs, idleTimeoutMs ?? 2 * heartbeatMs, busy, onStall);
  }

  private constructor(
    socket: WebSocketLike,
    pings: boolean,
    heartbeatMs: number,
    idleMs: number,
    busy: () => boolean,
    onStall: (silentMs: number) => void,
  ) {
    this.#socket = pings ? (socket as WebSocketLike & PingingSocket) : undefined;
    this.#idleMs = idleMs;
    this.#busy = busy;
    this.#onStall = onStall;
    this.#socket?.on("pong", () => (this.#heard = true));
    this.#timer = setInterval(() => this.#tick(), heartbeatMs);
    // A watchdog must never keep a process alive on its own.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Something arrived on the socket. */
  heard(): void {
    this.#heard = true;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #tick(): void {
    const now = Date.now();
    // Without pings, silence while nothing is awaited says nothing about the peer.
    if (this.#heard || (this.#socket === undefined && !this.#busy())) {
      this.#heard = false;
      this.#quietSince = now;
    } else if (now - this.#quietSince >= this.#idleMs) {
      this.stop();
      return this.#onStall(now - this.#quietSince);
    }
    try {
      this.#socket?.ping();
    } catch {
      // A socket that is closing cannot ping; its close event follows.
    }
  }
}
