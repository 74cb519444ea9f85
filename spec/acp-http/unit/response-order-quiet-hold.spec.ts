/**
 * How an answer that came in a POST body waits for its session's updates on a server without a
 * response echo (`quiet` holds): measured from the answer's arrival, restarted by each of the
 * session's frames, shortened once a read of them has completed after the arrival, confirmed
 * after pending I/O, kept while the stream reconnects, and never longer than 2 s.
 */
import { jest } from "@jest/globals";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import type { AcpResponse, JsonRpcId } from "../../../lib/acp-http/envelope.js";
import { QUIET_MAX_MS, QUIET_MS, ResponseHolds, TURN_QUIET_MS, quietWindowOf } from "../../../lib/acp-http/response-order.js";
import { advance, settle, useFakeClock } from "./client-harness.js";

const SESSION = "s-1";

afterEach(() => {
  jest.useRealTimers();
});

interface Rig {
  holds: ResponseHolds;
  released: JsonRpcId[];
  stream: { reconnecting: boolean };
  /** One stream read carrying `count` frames of `session`, fully dispatched. */
  read(count?: number, session?: string): void;
  /** Holds the answer to request `id` of `method` on SESSION. */
  answer(id: number, method?: string): void;
}

function rig(): Rig {
  const released: JsonRpcId[] = [];
  const stream = { reconnecting: false };
  const holds = new ResponseHolds({
    echoGraceMs: 1500,
    streamStarted: () => true,
    streamOpen: () => !stream.reconnecting,
    streamReconnecting: () => stream.reconnecting,
    release: (response) => released.push(response.id),
  });
  return {
    holds,
    released,
    stream,
    read(count = 1, session = SESSION) {
      for (let i = 0; i < count; i++) holds.noteFrame(session);
      holds.readDone();
    },
    answer(id, method = "session/prompt") {
      const response: AcpResponse = { jsonrpc: "2.0", id, result: { stopReason: "end_turn" } };
      holds.hold(String(id), response, undefined, "quiet", SESSION, quietWindowOf(method));
    },
  };
}

/** Advances the fake clock by `ms`, then lets pending I/O (real immediates) run. */
async function pass(ms: number): Promise<void> {
  await advance(ms);
  await settle();
}

describe("a held answer on a server without a response echo", () => {
  it("measures its window from the answer's arrival, not from the session's last frame before it", async () => {
    useFakeClock();
    const r = rig();
    // The previous turn's updates, long before this answer.
    r.read(50);
    await pass(1_000);
    r.answer(2);
    await pass(5);
    expect(r.released).toEqual([]);
    await pass(TURN_QUIET_MS - 20);
    expect(r.released).toEqual([]);
    await pass(20);
    expect(r.released).toEqual([2]);
  });

  it("keeps a turn's answer while its updates arrive after it, and releases it QUIET_MS after the last", async () => {
    useFakeClock();
    const r = rig();
    r.answer(2);
    await pass(60);
    // The turn's updates start after the answer and keep coming, 10 ms apart, for 300 ms.
    for (let i = 0; i < 30; i++) {
      r.read(2);
      await pass(10);
      expect(r.released).toEqual([]);
    }
    await pass(QUIET_MS - 10 - 1);
    expect(r.released).toEqual([]);
    await pass(2);
    expect(r.released).toEqual([2]);
  });

  it("gives an answer that ends no turn the shorter window from its arrival", async () => {
    useFakeClock();
    const r = rig();
    r.read(3);
    await pass(500);
    r.answer(3, "session/set_mode");
    await pass(QUIET_MS - 5);
    expect(r.released).toEqual([]);
    await pass(10);
    expect(r.released).toEqual([3]);
  });

  it("is neither kept nor released by another session's frames", async () => {
    useFakeClock();
    const r = rig();
    r.answer(2);
    await pass(30);
    r.read(5, "other");
    await pass(TURN_QUIET_MS - 30 + 5);
    expect(r.released).toEqual([2]);
  });

  it("counts a read only once it was fully dispatched after the arrival", async () => {
    useFakeClock();
    const r = rig();
    // Frames of the session whose read has not completed yet when the answer arrives.
    r.holds.noteFrame(SESSION);
    r.answer(2);
    r.holds.readDone();
    await pass(QUIET_MS + 5);
    // That read completed after the arrival: the burst has begun to come, the short window applies.
    expect(r.released).toEqual([2]);
  });

  it("looks again after pending I/O: a loop held up past the window still reads the frames that came meanwhile", async () => {
    // Real timers and a real socket: the window passes while the event loop is busy, and the
    // session's frame is already in the socket when the hold's timer fires, before the loop reads it.
    const r = rig();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
    const reader = connect((server.address() as AddressInfo).port, "127.0.0.1");
    await new Promise((resolve) => reader.once("connect", resolve));
    const writer = await accepted;
    try {
      reader.on("data", () => r.read(1));
      r.answer(2, "session/set_mode");
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          writer.write("frame");
          // Busy past the window: the hold's timer is due when this callback returns.
          const until = Date.now() + QUIET_MS + 15;
          while (Date.now() < until);
          resolve();
        }, 5),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(r.released).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 40));
      expect(r.released).toEqual([2]);
    } finally {
      reader.destroy();
      writer.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("waits while the stream reconnects, and for the window once it is back", async () => {
    useFakeClock();
    const r = rig();
    r.stream.reconnecting = true;
    r.answer(2);
    await pass(500);
    expect(r.released).toEqual([]);
    r.stream.reconnecting = false;
    r.read(10);
    await pass(QUIET_MS + 30);
    expect(r.released).toEqual([2]);
  });

  it(`is released at ${QUIET_MAX_MS} ms even while the session's frames never stop`, async () => {
    useFakeClock();
    const r = rig();
    r.answer(2);
    const started = Date.now();
    for (let i = 0; i < 400 && r.released.length === 0; i++) {
      r.read(1);
      await pass(10);
    }
    expect(r.released).toEqual([2]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(QUIET_MAX_MS);
    expect(Date.now() - started).toBeLessThanOrEqual(QUIET_MAX_MS + 20);
  });

  it(`is released at ${QUIET_MAX_MS} ms when the stream never comes back`, async () => {
    useFakeClock();
    const r = rig();
    r.stream.reconnecting = true;
    r.answer(2);
    await pass(QUIET_MAX_MS - 10);
    expect(r.released).toEqual([]);
    await pass(30);
    expect(r.released).toEqual([2]);
  });
});
