/**
 * `responseEcho: true` promises a stream copy of every response, and the copy's place on the stream
 * orders it after the turn's updates. A POST body that comes back long before the stream catches up
 * (a busy machine: the stream quiet for seconds) must still wait for that copy, so `prompt()` never
 * resolves ahead of its own updates; and when the stream gives up, the answer is released, not lost.
 */
import { AcpHttpClient, isResponse, type AcpEnvelope } from "../../../lib/acp-http/index.js";
import { startLateEchoServer, type LateEchoServer } from "../../support/late-echo-server.js";
import { SANDBOX_AGENT_HEADER } from "../../support/sandbox-agent-transport.js";
import { chunkTexts, range, record, textPrompt } from "./helpers.js";

const LAG_MS = 2500;
const UPDATES = 200;
const SESSION_ID = "late-session";

let server: LateEchoServer | undefined;
let client: AcpHttpClient | undefined;

afterEach(async () => {
  await client?.disconnect();
  await server?.stop();
  client = undefined;
  server = undefined;
});

function connect(baseUrl: string, path: string): AcpHttpClient {
  return new AcpHttpClient({
    baseUrl,
    path,
    ...SANDBOX_AGENT_HEADER,
    responseEcho: true,
    reconnect: { initialDelayMs: 20, maxDelayMs: 50, jitter: 0, maxRetries: 2 },
    closeTimeoutMs: 500,
  });
}

describe("responseEcho: true with a stream that lags behind the POST body", () => {
  it("resolves a prompt only after every update the stream carries ahead of its response copy", async () => {
    server = await startLateEchoServer({ lagMs: LAG_MS, updates: UPDATES });
    client = connect(server.baseUrl, server.path);
    const seen = record(client);
    await client.initialize();
    const started = Date.now();
    let seenAtResult: AcpEnvelope[] = [];
    const result = await client.prompt(textPrompt(SESSION_ID, "late")).then((answer) => {
      seenAtResult = [...seen.envelopes];
      return answer;
    });

    expect(result.stopReason).toBe("end_turn");
    expect(chunkTexts(seenAtResult, SESSION_ID)).toEqual(range(UPDATES, "u"));
    const responses = seenAtResult.filter((envelope) => isResponse(envelope) && envelope.id === 2);
    expect(responses).toHaveLength(1);
    expect(seenAtResult.at(-1)).toBe(responses[0]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LAG_MS - 100);
  }, 15_000);

  it("releases the held answer when the stream ends and cannot be reopened", async () => {
    server = await startLateEchoServer({ lagMs: LAG_MS, updates: UPDATES, stream: "end-and-refuse" });
    client = connect(server.baseUrl, server.path);
    await client.initialize();
    const result = await client.prompt(textPrompt(SESSION_ID, "late"));

    expect(result.stopReason).toBe("end_turn");
    await expect(client.closed).resolves.toMatchObject({ reason: "stream-rejected" });
    expect(server.streamsOpened).toBe(1);
  }, 15_000);
});
