/**
 * The protocol client's WebSocket transport against qwen serve 0.24.4's upgrade on /acp (the
 * RFD's second transport on the same path): one socket, `initialize` first, every reply and
 * notification on it. The model is the loopback fake in spec/support.
 */
import WebSocket from "ws";
import { isNotification, type AcpEnvelope } from "../../lib/acp-http/index.js";
import { FAKE_REPLY_MARKER } from "../support/fake-openai.js";
import { QWEN_INSTALL_TIMEOUT_MS, qwenCliEntry } from "../support/qwen-server.js";
import { qwenForBlock } from "./support/qwen-block.js";

const chunkText = (envelope: AcpEnvelope, sessionId: string): string | undefined => {
  if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
  const params = envelope.params as { sessionId?: string; update?: { sessionUpdate?: string; content?: { text?: string } } };
  if (params.sessionId !== sessionId || params.update?.sessionUpdate !== "agent_message_chunk") return undefined;
  return params.update.content?.text;
};

beforeAll(() => qwenCliEntry(), QWEN_INSTALL_TIMEOUT_MS);

describe("interop: qwen serve 0.24.4 over WebSocket (/acp upgrade)", () => {
  const { server, connect } = qwenForBlock();

  it("initialize, session/new and a streamed prompt all travel on one socket", async () => {
    const client = connect({ transport: "websocket", WebSocket });
    const init = await client.initialize({}, { timeoutMs: 30_000 });
    expect(init.protocolVersion).toBe(1);
    expect(client.state).toBe("open");
    const session = await client.newSession({ cwd: server().workspace, mcpServers: [] }, { timeoutMs: 30_000 });
    const texts: string[] = [];
    const subscription = client.envelopes$.subscribe((envelope) => {
      const text = chunkText(envelope, session.sessionId);
      if (text !== undefined) texts.push(text);
    });
    const result = await client.prompt(
      { sessionId: session.sessionId, prompt: [{ type: "text", text: "hello over a socket" }] },
      { timeoutMs: 60_000 },
    );
    subscription.unsubscribe();
    expect(result.stopReason).toBe("end_turn");
    expect(texts.join("")).toBe(`${FAKE_REPLY_MARKER} hello over a socket`);
  }, 120_000);
});
