/** AcpHttpClient against a real sandbox-agent 0.4.2 server started with `--token`. */
import { AcpConnectionClosedError, AcpHttpClient, AcpHttpError } from "../../../lib/acp-http/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { chunkTexts, newSessionParams, range, record, sandboxClient, settle, textPrompt } from "./helpers.js";

const TOKEN = "tok-7f3c9a1e5b2d-very-secret";
const WRONG = "tok-wrong-0d9e8f7a6b5c-also-secret";

let server: SandboxAgentServer;
const clients: AcpHttpClient[] = [];

function client(label: string, token: string | undefined): AcpHttpClient {
  const created = sandboxClient(server.baseUrl, label, token === undefined ? {} : { token });
  clients.push(created);
  return created;
}

function expectTokenFree(error: unknown): void {
  for (const secret of [TOKEN, WRONG]) {
    expect((error as Error).message).not.toContain(secret);
    expect(String(error)).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect((error as Error).stack ?? "").not.toContain(secret);
  }
}

beforeAll(async () => {
  server = await startSandboxAgent({ token: TOKEN });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect()));
});

afterAll(async () => {
  await server?.stop();
});

describe("token auth against sandbox-agent 0.4.2", () => {
  it("works with the right token (string or function), on POST and on the event stream", async () => {
    const acp = client("auth-ok", TOKEN);
    const seen = record(acp);
    await acp.initialize();
    const { sessionId } = await acp.newSession(newSessionParams());
    await expect(acp.prompt(textPrompt(sessionId, "chunks 3"))).resolves.toMatchObject({ stopReason: "end_turn" });
    // The chunks only travel on the GET stream, so the stream was authorized too.
    expect(chunkTexts(seen.envelopes, sessionId)).toEqual(range(3, "c"));
    expect(acp.state).toBe("open");
    seen.stop();

    const viaFunction = sandboxClient(server.baseUrl, "auth-fn", { token: async () => TOKEN });
    clients.push(viaFunction);
    await expect(viaFunction.extMethod("_probe/echo", { ok: true })).resolves.toEqual({ ok: true });
  });

  it.each([
    ["missing", undefined],
    ["wrong", WRONG],
  ])("a %s token rejects with AcpHttpError 401 that does not contain the token", async (_label, token) => {
    const acp = client(`auth-${_label}`, token);
    const outcome = await settle(acp.initialize());
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? undefined : outcome.error;
    expect(error).toBeInstanceOf(AcpHttpError);
    expect(error).toMatchObject({ status: 401, problem: { type: "urn:sandbox-agent:error:token_invalid" } });
    expect((error as AcpHttpError).message).toContain("401");
    expectTokenFree(error);
    // A failed first initialize: the connection never came up, so the client closes, saying why.
    const info = await acp.closed;
    expect(info.reason).toBe("unauthorized");
    expect(info.error?.cause).toBe(error);
    expectTokenFree(info.error);
  });

  it("a token that goes bad mid-connection: the token function is asked once more, then the connection closes as unauthorized; the error carries no token", async () => {
    let current = TOKEN;
    let asked = 0;
    const acp = sandboxClient(server.baseUrl, "auth-rotate", {
      token: () => {
        asked++;
        return current;
      },
    });
    clients.push(acp);
    await acp.initialize();
    current = WRONG;
    const before = asked;
    const outcome = await settle(acp.extMethod("_probe/echo", { n: 1 }));
    const error = outcome.ok ? undefined : outcome.error;
    expect(error).toBeInstanceOf(AcpConnectionClosedError);
    expect((error as AcpConnectionClosedError).reason).toBe("unauthorized");
    expect(((error as Error).cause as AcpHttpError).status).toBe(401);
    // The refused POST and its one retry (the stream GET may ask too).
    expect(asked - before).toBeGreaterThanOrEqual(2);
    expect((await acp.closed).reason).toBe("unauthorized");
    expectTokenFree(error);
  });

  it("a token that was refreshed: the retry with the fresh token succeeds and the connection stays open", async () => {
    let current = TOKEN;
    const acp = sandboxClient(server.baseUrl, "auth-refresh", {
      token: () => {
        const now = current;
        current = TOKEN; // a refreshing source: one stale answer, then a good one
        return now;
      },
    });
    clients.push(acp);
    await acp.initialize();
    current = WRONG;
    await expect(acp.extMethod("_probe/echo", { n: 2 })).resolves.toBeDefined();
    expect(acp.closeInfo).toBeUndefined();
  });
});
