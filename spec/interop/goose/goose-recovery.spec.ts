/**
 * The protocol client against a goose whose connections die: goose keeps no connection across a
 * restart and replays nothing, so the client's `recover` must re-`initialize` and `session/load`
 * (goose advertises `loadSession`; its sessions live on disk in HOME). HTTP and WebSocket; and
 * event streams cut under a live connection, which goose survives without any recovery.
 */
import { AcpInterruptedError, type AcpHttpClient, type AcpRecovery } from "../../../lib/acp-http/index.js";
import { FAKE_REPLY_MARKER } from "../../support/fake-openai.js";
import { startFaultProxy } from "../../support/fault-proxy.js";
import { describeWith } from "../../support/system-component.js";
import { chunks, gooseForBlock, firstChunk, openSession, record, type Overrides } from "./goose-helpers.js";
import { GOOSE, GOOSE_INSTALL_TIMEOUT_MS, GOOSE_VERSION, gooseBinary } from "./goose-server.js";

const run = describeWith([GOOSE]);

if (GOOSE.available()) beforeAll(() => gooseBinary(), GOOSE_INSTALL_TIMEOUT_MS);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

// Retries cover goose's restart (a second or two with the port closed).
const RECOVER: Overrides = { recover: true, reconnect: { initialDelayMs: 50, maxDelayMs: 250, maxRetries: 60 } };

const say = (client: AcpHttpClient, sessionId: string, text: string, timeoutMs = 15_000) =>
  client.prompt({ sessionId, prompt: [{ type: "text", text }] }, { timeoutMs });

function watch(client: AcpHttpClient): AcpRecovery[] {
  const recoveries: AcpRecovery[] = [];
  client.recoveries$.subscribe((recovery) => recoveries.push(recovery));
  return recoveries;
}

for (const transport of ["http", "websocket"] as const) {
  run(`interop: goose serve ${GOOSE_VERSION}, recovery over ${transport}`, () => {
    const { server, connect } = gooseForBlock();
    const client = () => connect({ ...RECOVER, transport });

    it("a prompt in flight when goose is killed fails with AcpInterruptedError; a new connection follows", async () => {
      const acp = client();
      const recoveries = watch(acp);
      const sessionId = await openSession(acp, server());
      const before = acp.connectionId;
      const started = firstChunk(acp, sessionId);
      const turn = say(acp, sessionId, "SLOW and then killed", 30_000);
      await started;
      // Watched before the kill: the turn may fail while the restart is still under way.
      const interrupted = expect(turn).rejects.toBeInstanceOf(AcpInterruptedError);
      await server().restart();
      await interrupted;
      await waitFor(() => recoveries.length === 1, 30_000, "a recovery");
      expect(recoveries[0]?.connectionId).toBeTruthy();
      expect(recoveries[0]?.connectionId).not.toBe(before);
      expect(acp.connectionId).toBe(recoveries[0]?.connectionId);
      expect(acp.closeInfo).toBeUndefined();
    }, 60_000);

    it("after goose is killed the client session/loads its session, which prompts as before", async () => {
      const acp = client();
      const recoveries = watch(acp);
      const sessionId = await openSession(acp, server());
      expect((await say(acp, sessionId, "before the kill")).stopReason).toBe("end_turn");
      await server().restart();
      await waitFor(() => recoveries.length === 1, 30_000, "a recovery");
      expect(recoveries[0]).toMatchObject({ loaded: [sessionId], failed: [] });
      expect(acp.state).toBe("open");
      const seen = record(acp);
      expect((await say(acp, sessionId, "after the kill")).stopReason).toBe("end_turn");
      seen.stop();
      expect(chunks(seen.all, sessionId).join("")).toContain(`${FAKE_REPLY_MARKER} after the kill`);
    }, 60_000);
  });
}

run(`interop: goose serve ${GOOSE_VERSION}, event streams cut under a live connection`, () => {
  const { server, connect } = gooseForBlock();

  // goose holds a session's output while no stream is attached and sends it to the next GET
  // (1.37 dropped it): a cut mid-turn loses nothing, and the connection needs no recovery.
  it("a turn whose streams are cut mid-way completes with every chunk on the same connection", async () => {
    const proxy = await startFaultProxy(server().baseUrl);
    try {
      const acp = connect({ ...RECOVER, baseUrl: proxy.baseUrl });
      const recoveries = watch(acp);
      const sessionId = await openSession(acp, server());
      const before = acp.connectionId;
      const seen = record(acp);
      const started = firstChunk(acp, sessionId);
      const turn = say(acp, sessionId, "SLOW through a cut", 30_000);
      await started;
      expect(proxy.cutStreams()).toBe(2);
      expect((await turn).stopReason).toBe("end_turn");
      seen.stop();
      expect(chunks(seen.all, sessionId).join("")).toContain(`${FAKE_REPLY_MARKER} SLOW through a cut`);
      expect(proxy.streamsOpened()).toBeGreaterThanOrEqual(4);
      expect(recoveries).toEqual([]);
      expect(acp.connectionId).toBe(before);
    } finally {
      await proxy.stop();
    }
  }, 60_000);
});
