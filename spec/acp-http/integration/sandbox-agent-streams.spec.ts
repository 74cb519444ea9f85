/**
 * The event stream of AcpHttpClient against the real sandbox-agent 0.4.2 server: resuming with
 * Last-Event-ID after the response is cut mid-stream, and bursts of updates.
 */
import { AcpHttpClient, type EventGap } from "../../../lib/acp-http/index.js";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { chunkTexts, newSessionParams, range, record, sandboxClient, textPrompt, waitFor } from "./helpers.js";

let server: SandboxAgentServer;
let proxy: FaultProxy;
const clients: AcpHttpClient[] = [];

function client(label: string, baseUrl: string): AcpHttpClient {
  const created = sandboxClient(baseUrl, label, { reconnect: { initialDelayMs: 50, maxDelayMs: 500, maxRetries: 10 } });
  clients.push(created);
  return created;
}

/** `c<i>` → i, for burst accounting. */
function seqOf(text: string): number {
  expect(text).toMatch(/^c\d+$/);
  return Number(text.slice(1));
}

beforeAll(async () => {
  server = await startSandboxAgent();
  proxy = await startFaultProxy(server.baseUrl);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect()));
});

afterAll(async () => {
  await proxy?.stop();
  await server?.stop();
});

describe("event stream against sandbox-agent 0.4.2", () => {
  it("resumes with Last-Event-ID after the SSE response is cut mid-stream: nothing lost, nothing repeated", async () => {
    const acp = client("resume", proxy.baseUrl);
    const seen = record(acp);
    const gaps: EventGap[] = [];
    const gapSubscription = acp.gaps$.subscribe((gap) => gaps.push(gap));
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());
    const streamsBefore = proxy.streamsOpened();
    const idsBefore = proxy.lastEventIds().length;

    const turn = acp.prompt(textPrompt(sessionId, "slowchunks 40 20"));
    await waitFor(() => chunkTexts(seen.envelopes, sessionId).length >= 10, 10_000, "10 chunks before the cut");
    const cursorAtCut = Number(acp.lastEventId);
    expect(proxy.cutStreams()).toBe(1);

    const result = await turn;
    expect(result.stopReason).toBe("end_turn");
    expect(chunkTexts(seen.envelopes, sessionId)).toEqual(range(40, "c"));
    expect(gaps).toEqual([]);

    // The client came back on a new GET that asked for what followed its cursor.
    expect(proxy.streamsOpened()).toBeGreaterThan(streamsBefore);
    const resumedFrom = proxy.lastEventIds().slice(idsBefore).map(Number);
    expect(resumedFrom.length).toBeGreaterThanOrEqual(1);
    expect(resumedFrom[0]).toBeGreaterThanOrEqual(cursorAtCut);
    expect(Number(acp.lastEventId)).toBeGreaterThan(cursorAtCut);
    // 40 chunks after the cursor that was current at the cut, at least (chunks + the prompt response).
    expect(Number(acp.lastEventId)).toBeGreaterThanOrEqual(cursorAtCut + 40 - 10);
    gapSubscription.unsubscribe();
    seen.stop();
  });

  /**
   * sandbox-agent 0.4.2 drops events from its live stream under a burst when it is short of CPU:
   * a 20,000-update burst loses some on a quiet machine, a 2,000-update one only on a loaded one
   * (seen with two busy loops beside the test: ids 363..979 never sent, and by the time the reader
   * sees the hole they have left the server's 1024-event replay ring). No client can recover them;
   * what the client must do is deliver what it gets once and in order, report every hole on gaps$,
   * and deliver everything when nothing was reported missing.
   */
  it.each([2000, 20_000])(
    "a %i-update burst: every delivered update once and in order, every missing one accounted for on gaps$",
    async (total) => {
      const acp = client(`burst-${total}`, server.baseUrl);
      const seen = record(acp);
      const gaps: EventGap[] = [];
      const gapSubscription = acp.gaps$.subscribe((gap) => gaps.push(gap));
      await acp.initialize();
      const { sessionId } = await acp.newSession(newSessionParams());

      const result = await acp.prompt(textPrompt(sessionId, `burst ${total}`));
      expect(result.stopReason).toBe("end_turn");
      const seqs = chunkTexts(seen.envelopes, sessionId).map(seqOf);
      if (gaps.length === 0) expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i));

      // Once each, strictly increasing.
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1] ?? -1);
      expect(seqs.every((seq) => seq >= 0 && seq < total)).toBe(true);

      // Gaps are well-formed, on the connection stream, and do not overlap.
      let previousLast = 0;
      for (const gap of gaps) {
        expect(gap.stream).toBe("connection");
        expect(gap.firstMissing).toBeGreaterThan(previousLast);
        expect(gap.lastMissing).toBeGreaterThanOrEqual(gap.firstMissing);
        previousLast = gap.lastMissing;
      }
      // Accounting: every update that was not delivered lies inside a reported range (the ranges
      // count event ids, which may also cover a few non-chunk events, hence at most).
      const missing = gaps.reduce((sum, gap) => sum + gap.lastMissing - gap.firstMissing + 1, 0);
      expect(total - seqs.length).toBeLessThanOrEqual(missing);
      expect(acp.state).toBe("open");
      gapSubscription.unsubscribe();
      seen.stop();
    },
    45_000,
  );
});
