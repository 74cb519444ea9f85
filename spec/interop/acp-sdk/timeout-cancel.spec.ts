/**
 * A request whose `timeoutMs` runs out is given up exactly as an aborted one: with request
 * cancellation on (`RFD_PROFILE`), the agent behind the official SDK's `AcpServer` 2.4.0 sees
 * `$/cancel_request` for that request's id, over Streamable HTTP and over WebSocket alike.
 */
import WebSocket from "ws";
import {
  AcpHttpClient,
  AcpTimeoutError,
  RFD_PROFILE,
  type AcpHttpClientOptions,
  type WebSocketConstructor,
} from "../../../lib/acp-http/index.js";
import { startAcpSdkServer, type AcpSdkServer } from "../../support/acp-sdk-server.js";

const TRANSPORTS: Record<string, Partial<AcpHttpClientOptions>> = {
  http: {},
  websocket: { transport: "websocket", WebSocket: WebSocket as unknown as WebSocketConstructor },
};

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(Object.keys(TRANSPORTS))("interop: AcpServer, a timed-out request over %s", (transport) => {
  let server: AcpSdkServer;
  let client: AcpHttpClient;
  const connect = (extra: Partial<AcpHttpClientOptions> = {}): AcpHttpClient =>
    (client = new AcpHttpClient({
      baseUrl: server.baseUrl,
      ...RFD_PROFILE,
      closeTimeoutMs: 1000,
      ...TRANSPORTS[transport],
      ...extra,
    }));

  beforeEach(async () => (server = await startAcpSdkServer()));
  afterEach(async () => {
    await client?.disconnect();
    await server.stop();
  });

  it("sends $/cancel_request with the timed-out request's id, and only that one", async () => {
    connect();
    await client.initialize();
    // The agent holds `_test/hang` until it is cancelled: id 2 waits, id 3 times out. The deadline leaves
    // the agent time to start id 3 on a loaded machine: a POST given up before the server took it makes
    // a `$/cancel_request` for a request the agent never had, which it rightly ignores (seen at 150 ms).
    const waiting = client.request("_test/hang", {}).catch((error: unknown) => error);
    const timedOut = client.request("_test/hang", {}, { timeoutMs: 1500 });
    await expect(timedOut).rejects.toBeInstanceOf(AcpTimeoutError);
    await waitFor(() => server.log.cancelledRequests.length > 0, 3000, "the agent to see $/cancel_request");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.log.cancelledRequests).toEqual([3]);
    await client.disconnect();
    await waiting;
  });

  it("sends nothing when request cancellation is off", async () => {
    connect({ cancelRequests: false });
    await client.initialize();
    await expect(client.request("_test/hang", {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(AcpTimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.log.cancelledRequests).toEqual([]);
  });
});
