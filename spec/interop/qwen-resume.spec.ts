/**
 * Per-session resume against the real `qwen serve` 0.24.4 (RFD profile): a client that
 * "reloads" mid-turn (its streams cut, no DELETE) is followed by a new client that reattaches
 * the stored connection id and resumes the session's stream from that session's stored
 * cursor. The model is the loopback fake (SLOW: six chunks 700 ms apart).
 */
import { randomUUID } from "node:crypto";
import {
  AcpConnectionClosedError,
  AcpHttpError,
  RFD_PROFILE,
  isNotification,
  type AcpEnvelope,
  type AcpHttpClient,
  type AcpParseError,
  type CursorAdvance,
} from "../../lib/acp-http/index.js";
import { reattach } from "../../lib/acp-http/reattach.js";
import { readSseBody } from "../../lib/internal/sse.js";
import { FAKE_REPLY_MARKER } from "../support/fake-openai.js";
import { QWEN_INSTALL_TIMEOUT_MS, qwenCliEntry, type QwenServe } from "../support/qwen-server.js";
import { qwenForBlock } from "./support/qwen-block.js";

const SESSION_HEADER = RFD_PROFILE.sessionStreams.header;

/** One event of a session stream, as a client saw it: its SSE id and its envelope. */
interface Seen {
  id: string;
  envelope: AcpEnvelope;
}

/**
 * What a page keeps across a reload: the connection id and each session's cursor, written by
 * `onCursor`. It also tapes the events the page saw with their ids: `onCursor` runs just before
 * its frame is dispatched, so the next envelope of `envelopes$` is that frame.
 */
class Page {
  readonly seen: Seen[] = [];
  readonly all: AcpEnvelope[] = [];
  readonly parseErrors: AcpParseError[] = [];
  readonly cursors = new Map<string, string>();
  #pendingId: string | undefined;

  readonly onCursor = (advance: CursorAdvance): void => {
    if (advance.sessionId === undefined) return;
    this.cursors.set(advance.sessionId, advance.lastEventId);
    this.#pendingId = advance.lastEventId;
  };

  watch(client: AcpHttpClient): void {
    client.envelopes$.subscribe((envelope) => {
      this.all.push(envelope);
      if (this.#pendingId !== undefined) this.seen.push({ id: this.#pendingId, envelope });
      this.#pendingId = undefined;
    });
    client.parseErrors$.subscribe((error) => this.parseErrors.push(error));
  }
}

/** A fetch that can be cut off as a reload does: every open request aborts and nothing more goes out. */
function unloadableFetch(): { fetch: typeof fetch; unload(): void } {
  const page = new AbortController();
  return {
    fetch: (input, init = {}) => {
      if (page.signal.aborted) return Promise.reject(new TypeError("fetch failed: the page is gone"));
      const signal = init.signal ? AbortSignal.any([init.signal, page.signal]) : page.signal;
      return fetch(input, { ...init, signal });
    },
    unload: () => page.abort(new Error("page unloaded")),
  };
}

const chunkText = (envelope: AcpEnvelope): string | undefined => {
  if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
  const update = (envelope.params as { update?: { sessionUpdate?: string; content?: { text?: string } } }).update;
  return update?.sessionUpdate === "agent_message_chunk" ? (update.content?.text ?? "") : undefined;
};

const notifyKind = (envelope: AcpEnvelope): string | undefined =>
  isNotification(envelope) && envelope.method === "_qwen/notify"
    ? (envelope.params as { kind?: string } | undefined)?.kind
    : undefined;

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The server's own record of a session: its ring, read raw from "0" up to `replay_complete`. */
async function ring(server: QwenServe, connectionId: string, sessionId: string): Promise<Seen[]> {
  const controller = new AbortController();
  const response = await fetch(`${server.baseUrl}${RFD_PROFILE.path}`, {
    headers: {
      accept: "text/event-stream",
      [RFD_PROFILE.connectionIdHeader]: connectionId,
      [SESSION_HEADER]: sessionId,
      "last-event-id": "0",
    },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const events: Seen[] = [];
  await readSseBody(response.body as ReadableStream<Uint8Array>, {
    onFrame: (frame) => {
      const envelope = JSON.parse(frame.data) as AcpEnvelope;
      if (notifyKind(envelope) === "replay_complete") return controller.abort();
      if (frame.id !== undefined) events.push({ id: frame.id, envelope });
    },
  }).catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  return events;
}

beforeAll(() => qwenCliEntry(), QWEN_INSTALL_TIMEOUT_MS);

describe("interop: qwen serve 0.24.4, per-session resume after a reload", () => {
  const { server, options, connect, adopt } = qwenForBlock({
    client: { reconnect: { initialDelayMs: 50, maxDelayMs: 200, maxRetries: 2 } },
  });

  it("a reload mid-turn: resumed from the stored cursor, every update once, in order", async () => {
    const before = new Page();
    const wire = unloadableFetch();
    const first = connect({ fetch: wire.fetch, onCursor: before.onCursor });
    before.watch(first);
    await first.initialize();
    const connectionId = first.connectionId as string;
    const { sessionId } = await first.newSession({ cwd: server().workspace, mcpServers: [] });
    void first.prompt({ sessionId, prompt: [{ type: "text", text: "SLOW survive a reload" }] }).catch(() => undefined);
    await waitFor(() => before.all.some((e) => chunkText(e) === "slow 2 "), 20_000, "the second chunk");
    wire.unload();
    const stored = before.cursors.get(sessionId);
    expect(stored).toBeDefined();
    // The turn goes on meanwhile: at 700 ms a chunk, the next ones land in the server's ring.
    await new Promise((resolve) => setTimeout(resolve, 1_600));

    const after = new Page();
    const back = await reattach(options({ onCursor: after.onCursor }), {
      connectionId,
      sessions: [{ sessionId, lastEventId: stored, cwd: server().workspace }],
    }, (client) => {
      adopt(client);
      after.watch(client);
    });
    expect(back).toMatchObject({ reattached: true, resumed: [sessionId], loaded: [], failed: [] });
    expect(back.client.connectionId).toBe(connectionId);
    await waitFor(() => after.all.some((e) => notifyKind(e) === "turn_complete"), 30_000, "turn_complete");

    const union = [...before.seen, ...after.seen];
    const ids = union.map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(after.seen[0]?.id).toBe(String(Number(stored) + 1));
    // The server's ring, up to the turn's end, is exactly what the two clients saw together.
    const end = Number(after.seen.find((s) => notifyKind(s.envelope) === "turn_complete")?.id);
    const reference = (await ring(server(), connectionId, sessionId)).filter((s) => Number(s.id) <= end);
    expect(union.filter((s) => Number(s.id) <= end)).toEqual(reference);
    const text = union.map((s) => chunkText(s.envelope)).filter((t): t is string => Boolean(t));
    const slow = ["slow 1 ", "slow 2 ", "slow 3 ", "slow 4 ", "slow 5 "];
    expect(text).toEqual([...slow, `${FAKE_REPLY_MARKER} SLOW survive a reload`]);
    // Some of it came back from the ring: the replay ended with its id-less marker, no parse error.
    const replays = after.all.filter((e) => notifyKind(e) === "replay_complete");
    expect(replays).toHaveLength(1);
    const replayed = (replays[0] as unknown as { params: { data: { replayedCount: number } } }).params.data;
    expect(replayed.replayedCount).toBeGreaterThan(0);
    expect(before.seen.length).toBeGreaterThan(0);
    expect([...before.parseErrors, ...after.parseErrors]).toEqual([]);
    // The reattached client goes on with the session.
    const next = await back.client.prompt({ sessionId, prompt: [{ type: "text", text: "after the reload" }] });
    expect(next.stopReason).toBe("end_turn");
  }, 90_000);

  it("an unknown stored connection: a typed failure, then a new connection and session/load", async () => {
    const wire = unloadableFetch();
    const original = connect({ fetch: wire.fetch });
    await original.initialize();
    const { sessionId } = await original.newSession({ cwd: server().workspace, mcpServers: [] });
    await original.prompt({ sessionId, prompt: [{ type: "text", text: "remember this turn" }] });
    wire.unload();

    const gone = randomUUID();
    const direct = connect({ connectionId: gone });
    const started = Date.now();
    const failure = await direct.attachSession(sessionId, { lastEventId: "5" }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure).toBeInstanceOf(AcpConnectionClosedError);
    expect((failure as AcpConnectionClosedError).reason).toBe("connection-lost");
    expect(((failure as Error).cause as AcpHttpError).status).toBe(404);
    await expect(direct.closed).resolves.toMatchObject({ reason: "connection-lost" });

    const page = new Page();
    const seenClients: AcpHttpClient[] = [];
    const back = await reattach(options({ onCursor: page.onCursor }), {
      connectionId: gone,
      sessions: [{ sessionId, lastEventId: "5", cwd: server().workspace }],
    }, (client) => {
      seenClients.push(adopt(client));
      page.watch(client);
    });
    expect(back).toMatchObject({ reattached: false, resumed: [], loaded: [sessionId], failed: [] });
    expect(seenClients).toHaveLength(2);
    expect(seenClients[0]?.closeInfo?.reason).toBe("connection-lost");
    expect(back.client).toBe(seenClients[1]);
    expect(back.client.connectionId).not.toBe(gone);
    // session/load replayed the history the agent keeps: the earlier turn's reply is there.
    await waitFor(
      () => page.all.some((e) => (chunkText(e) ?? "").includes(`${FAKE_REPLY_MARKER} remember this turn`)),
      10_000,
      "the loaded history",
    );
    const next = await back.client.prompt({ sessionId, prompt: [{ type: "text", text: "after the fallback" }] });
    expect(next.stopReason).toBe("end_turn");
  }, 90_000);
});
