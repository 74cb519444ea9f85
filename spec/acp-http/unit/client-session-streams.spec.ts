import { RFD_PROFILE, isResponse, type AcpHttpClientOptions, type EventGap } from "../../../lib/acp-http/index.js";
import { accepted, bodyOf, problemResponse, rpcResult } from "../../support/fake-acp-server.js";
import { BASE_URL, createHarness, disconnectAll, notification, settle, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

/** A client in the RFD profile whose server answers initialize, session/new and session/close inline. */
async function rfdClient(extra: Partial<AcpHttpClientOptions> = {}): Promise<Harness> {
  const h = createHarness({ ...RFD_PROFILE, ...extra }, { connectionId: "conn-uuid", connectionIdHeader: "Acp-Connection-Id" });
  h.server.onPost = (request) => {
    const message = bodyOf(request);
    if (message.method === "initialize") return rpcResult(message.id, { protocolVersion: 1 });
    if (message.method === "session/new") return rpcResult(message.id, { sessionId: "sess-1" });
    if (message.method === "session/close") return rpcResult(message.id, {});
    if ("id" in message) return rpcResult(message.id, {});
    return accepted();
  };
  await h.client.initialize();
  await h.server.stream(1);
  return h;
}

function sessionUpdates(h: Harness): string[] {
  return h.envelopes.flatMap((envelope) => {
    if (isResponse(envelope) || envelope.method !== "session/update") return [];
    return [(envelope.params as { update: { content: { text: string } } }).update.content.text];
  });
}

describe("AcpHttpClient session streams (RFD profile)", () => {
  it("opens one GET per created session, with the session header and its whole history from id 0", async () => {
    const h = await rfdClient();
    const connectionStream = h.server.streams[0];
    expect(connectionStream?.request.url.toString()).toBe(`${BASE_URL}/acp`);
    expect(connectionStream?.request.headers.get("acp-connection-id")).toBe("conn-uuid");
    expect(connectionStream?.request.headers.has("acp-session-id")).toBe(false);

    await h.client.newSession({ cwd: "/work", mcpServers: [] });
    const sessionStream = await h.server.stream(2);
    expect(sessionStream.request.headers.get("acp-session-id")).toBe("sess-1");
    expect(sessionStream.request.headers.get("acp-connection-id")).toBe("conn-uuid");
    expect(sessionStream.request.headers.get("last-event-id")).toBe("0");

    // Each stream keeps its own cursor: the same ids on both are not duplicates of each other.
    connectionStream?.send(1, notification(1));
    sessionStream.send(1, notification(2));
    sessionStream.send(2, notification(3));
    await settle();
    expect(sessionUpdates(h)).toEqual(["chunk 1", "chunk 2", "chunk 3"]);
  });

  it("sends the session header with every POST about that session", async () => {
    const h = await rfdClient();
    await h.client.newSession({ cwd: "/work", mcpServers: [] });
    await h.client.setSessionMode({ sessionId: "sess-1", modeId: "plan" });
    const [, newSession, setMode] = h.server.requestsOf("POST");
    expect(newSession?.headers.has("acp-session-id")).toBe(false);
    expect(setMode?.headers.get("acp-session-id")).toBe("sess-1");
  });

  it("reports gaps on a session stream under the session's name (a server that promises contiguous ids)", async () => {
    // RFD_PROFILE's ids are opaque (no gaps inferred); this server says its ids are contiguous.
    const h = await rfdClient({ contiguousEventIds: true });
    const gaps: EventGap[] = [];
    h.client.gaps$.subscribe((gap) => gaps.push(gap));
    await h.client.newSession({ cwd: "/work", mcpServers: [] });
    const sessionStream = await h.server.stream(2);
    sessionStream.send(3, notification(3));
    await settle();
    expect(gaps).toEqual([{ stream: "sess-1", sessionId: "sess-1", firstMissing: 1, lastMissing: 2 }]);
  });

  it("ends only that session's stream when the server refuses it with 403", async () => {
    const h = await rfdClient();
    h.server.onGet = () => problemResponse(403, { title: "Forbidden", status: 403 });
    await h.client.newSession({ cwd: "/work", mcpServers: [] });
    await h.server.request("GET", 2);
    await settle();
    expect(h.client.state).toBe("open");
    expect(h.server.streams[0]?.isOpen).toBe(true);
    expect(h.server.requestsOf("GET")).toHaveLength(2);
    expect(h.logs.some((line) => line.level === "warn" && line.details?.status === 403)).toBe(true);
  });

  it("stops a session's stream when the session is closed", async () => {
    const h = await rfdClient();
    await h.client.newSession({ cwd: "/work", mcpServers: [] });
    const sessionStream = await h.server.stream(2);
    await h.client.unstableCloseSession({ sessionId: "sess-1" });
    await settle();
    expect(sessionStream.isOpen).toBe(false);
    expect(h.server.streams[0]?.isOpen).toBe(true);
  });
});

describe("AcpHttpClient RFD profile ordering", () => {
  it("adopts a connection id from the initialize result before its stream GET goes out", async () => {
    // A browser that cannot read the header: the id is only in the result body.
    const h = createHarness({ ...RFD_PROFILE }, { connectionIdHeader: "Acp-Connection-Id" });
    const answer = { protocolVersion: 1, connectionId: "conn-from-body" };
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, answer);
    h.server.onGet = (request) =>
      request.headers.has("acp-connection-id")
        ? h.server.openStream(request).response
        : problemResponse(400, { title: "Missing Acp-Connection-Id", status: 400 });
    await h.client.initialize();
    const stream = await h.server.stream(1);
    expect(stream.request.headers.get("acp-connection-id")).toBe("conn-from-body");
    await settle();
    expect(h.client.state).toBe("open");
    expect(h.server.requestsOf("GET")).toHaveLength(1);
  });

  it("opens no stream and fails initialize (closing) when the id is in neither the header nor the body", async () => {
    const h = createHarness({ ...RFD_PROFILE }, { connectionIdHeader: "Acp-Connection-Id" });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    await expect(h.client.initialize()).rejects.toMatchObject({ name: "AcpProtocolError" });
    await settle();
    expect(h.server.requestsOf("GET")).toHaveLength(0);
    await expect(h.client.closed).resolves.toMatchObject({ reason: "initialize-failed" });
  });

  it.each([
    ["loadSession", (h: Harness) => h.client.loadSession({ sessionId: "sess-9", cwd: "/work", mcpServers: [] })],
    ["unstableResumeSession", (h: Harness) => h.client.unstableResumeSession({ sessionId: "sess-9", cwd: "/work" })],
  ])("%s opens the session stream named in its params (its result carries no sessionId)", async (_name, call) => {
    const h = await rfdClient();
    await call(h);
    const sessionStream = await h.server.stream(2);
    expect(sessionStream.request.headers.get("acp-session-id")).toBe("sess-9");
    expect(sessionStream.request.headers.get("last-event-id")).toBe("0");
    sessionStream.send(1, { ...notification(1), params: { ...notification(1).params, sessionId: "sess-9" } });
    await settle();
    expect(sessionUpdates(h)).toEqual(["chunk 1"]);
  });
});

describe("AcpHttpClient cursor after close", () => {
  it("keeps the connection stream's last event id readable once closed (to persist it)", async () => {
    const h = await rfdClient();
    h.server.streams[0]?.send(1, notification(1));
    await settle();
    await h.client.disconnect();
    expect(h.client.lastEventId).toBe("1");
  });
});
