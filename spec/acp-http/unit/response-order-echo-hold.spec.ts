/**
 * How long an inline response waits for its stream copy when the server promises one
 * (`responseEcho: true`): however quiet the stream, until the copy comes, the stream is gone,
 * a loss of events may have taken the copy, or 30 s have passed; and what `"auto"` does.
 */
import { jest } from "@jest/globals";
import { isResponse } from "../../../lib/acp-http/index.js";
import { bodyOf, rpcResult } from "../../support/fake-acp-server.js";
import {
  PROMPT,
  advance,
  createHarness,
  disconnectAll,
  notification,
  responsesWithId,
  result,
  settle,
  useFakeClock,
  watch,
  type Harness,
} from "./client-harness.js";

afterEach(async () => {
  jest.useRealTimers();
  await disconnectAll();
});

/** Answers every request in its POST body: initialize with a version, anything else ending a turn. */
function answerInline(h: Harness): void {
  h.server.onPost = (request) => {
    const message = bodyOf(request);
    return rpcResult(message.id, message.method === "initialize" ? { protocolVersion: 1 } : { stopReason: "end_turn" });
  };
}

/** Initialize (its copy comes on the stream), then the connection's stream. */
async function start(h: Harness) {
  const initialize = h.client.initialize();
  const stream = await h.server.stream(1);
  stream.send(1, result(1, { protocolVersion: 1 }));
  await initialize;
  await settle();
  return stream;
}

describe("responseEcho: true", () => {
  it("waits for the copy on a quiet stream well past the 1.5 s grace, and gives up only at 30 s", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true });
    answerInline(h);
    await start(h);
    const prompt = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    await advance(29_000);
    expect(prompt.settled).toBe(false);
    expect(responsesWithId(h.envelopes, 2)).toHaveLength(0);
    await advance(1_000);
    await settle();
    expect(prompt.value).toEqual({ stopReason: "end_turn" });
    expect(responsesWithId(h.envelopes, 2)).toHaveLength(1);
  });

  it("delivers at the copy's place, after updates that came seconds after the body", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true });
    answerInline(h);
    const stream = await start(h);
    const prompt = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    await advance(5_000);
    expect(prompt.settled).toBe(false);
    stream.send(2, notification(1));
    stream.send(3, notification(2));
    stream.send(4, result(2, { stopReason: "end_turn" }));
    await settle();
    expect(prompt.value).toEqual({ stopReason: "end_turn" });
    const order = h.envelopes.map((envelope) => (isResponse(envelope) ? envelope.id : envelope.method));
    expect(order).toEqual([1, "session/update", "session/update", 2]);
  });

  it("falls back to the grace period once events were lost for good: the copy may have been among them", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true });
    answerInline(h);
    const first = await start(h);
    const prompt = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    await advance(3_000);
    // The stream drops; the server no longer has ids 2..4 when it comes back.
    first.end();
    for (let i = 0; i < 20 && h.server.requestsOf("GET").length < 2; i++) await advance(5);
    const second = await h.server.stream(2);
    expect(second.request.headers.get("last-event-id")).toBe("1");
    second.send(5, notification(5));
    await settle();
    expect(prompt.settled).toBe(false);
    await advance(1_600);
    await settle();
    expect(prompt.value).toEqual({ stopReason: "end_turn" });
  });

  it("delivers a held answer rather than interrupting its request when the connection is rebuilt", async () => {
    useFakeClock();
    const h = createHarness({ responseEcho: true, recover: true });
    answerInline(h);
    const stream = await start(h);
    const prompt = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    await advance(2_000);
    expect(prompt.settled).toBe(false);
    // The server forgot the connection: its stream ends and cannot be reopened (404) until a new one is made.
    const reopen = h.server.onGet;
    h.server.onGet = () => {
      h.server.onGet = reopen;
      return new Response(null, { status: 404 });
    };
    stream.end();
    for (let i = 0; i < 20 && !prompt.settled; i++) await advance(5);
    expect(prompt.error).toBeUndefined();
    expect(prompt.value).toEqual({ stopReason: "end_turn" });
  });
});

describe('responseEcho: "auto"', () => {
  it("after an echo, waits for a copy while the stream is busy but not past 1.5 s of quiet", async () => {
    useFakeClock();
    const h = createHarness();
    answerInline(h);
    const stream = await start(h);
    const prompt = watch(h.client.prompt(PROMPT));
    await h.server.request("POST", 2);
    for (let n = 2; n <= 4; n++) {
      await advance(1_000);
      stream.send(n, notification(n));
      await settle();
    }
    expect(prompt.settled).toBe(false);
    await advance(1_600);
    await settle();
    expect(prompt.value).toEqual({ stopReason: "end_turn" });
  });
});
