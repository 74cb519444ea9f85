/**
 * `session/load` on per-session-stream servers (RFD profile). Some servers (goose 1.52) answer
 * the load on that session's own stream and hold the answer until a GET is there; others (qwen)
 * refuse the GET with 403 until the load has attached the session to the connection. The
 * session's stream opens ahead of the POST, and a refusal before the answer is asked again after it.
 */
import { RFD_PROFILE } from "../../../lib/acp-http/index.js";
import { bodyOf, problemResponse, type RecordedRequest } from "../../support/fake-acp-server.js";
import { createHarness, disconnectAll, result, settle, type Harness } from "./client-harness.js";

afterEach(disconnectAll);

const LOAD = { sessionId: "sess-9", cwd: "/tmp", mcpServers: [] };
const sessionGets = (h: Harness): RecordedRequest[] =>
  h.server.requestsOf("GET").filter((request) => request.headers.get("acp-session-id") === "sess-9");

async function initialized(): Promise<Harness> {
  const server = { connectionIdHeader: "Acp-Connection-Id", connectionId: "c1" };
  const h = createHarness({ ...RFD_PROFILE, closeTimeoutMs: 50 }, server);
  await h.client.initialize();
  await h.server.stream(1);
  return h;
}

describe("session/load and the session's own stream", () => {
  it("opens the session stream before the POST: an answer sent only on that stream arrives", async () => {
    const h = await initialized();
    const load = h.client.loadSession(LOAD, { timeoutMs: 3000 });
    const post = await h.server.request("POST", 2);
    expect(bodyOf(post).method).toBe("session/load");
    const stream = await h.server.until(() =>
      h.server.streams.find((s) => s.request.headers.get("acp-session-id") === "sess-9"),
    );
    expect(sessionGets(h)[0]?.headers.get("last-event-id")).toBe("0");
    stream.send(1, result(bodyOf(post).id, {}));
    await expect(load).resolves.toEqual({});
    expect(sessionGets(h)).toHaveLength(1);
  });

  it("a GET refused before the session is attached (403) is asked again once the load is answered", async () => {
    const h = await initialized();
    let attached = false;
    const defaultGet = h.server.onGet;
    h.server.onGet = (request) =>
      request.headers.get("acp-session-id") === "sess-9" && !attached
        ? problemResponse(403, { error: "Session not owned by this connection" })
        : defaultGet(request);
    h.server.onPost = (request) => {
      attached = true;
      return Response.json(result(bodyOf(request).id, {}));
    };
    // The refusal may arrive before or after the answer: both orders end with one open stream.
    await h.client.loadSession(LOAD, { timeoutMs: 3000 });
    await h.server.until(() => h.server.streams.find((s) => s.request.headers.get("acp-session-id") === "sess-9"));
    await settle();
    expect(sessionGets(h).length).toBeGreaterThanOrEqual(1);
    expect(h.client.closeInfo).toBeUndefined();
    expect(h.logs.filter((line) => line.level === "warn")).toEqual([]);
  });

  it("a failed load closes the stream opened for it", async () => {
    const h = await initialized();
    h.server.onPost = (request) =>
      Response.json({ jsonrpc: "2.0", id: bodyOf(request).id, error: { code: -32002, message: "no such session" } });
    await expect(h.client.loadSession(LOAD, { timeoutMs: 3000 })).rejects.toMatchObject({ code: -32002 });
    const stream = h.server.streams.find((s) => s.request.headers.get("acp-session-id") === "sess-9");
    await settle();
    expect(stream?.request.signal.aborted ?? true).toBe(true);
  });
});
