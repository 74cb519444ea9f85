// The default protocol version (1) reads exactly as before the opt-in v2 draft: `initialize` takes
// whatever version the agent answers, a prompt's answer is checked by the stable schema only, and a
// `protocolVersion` option without a profile is read as 1 rather than refused.
import { AcpHttpClient } from "../../../lib/acp-http/index.js";
import { bodyOf, rpcResult } from "../../support/fake-acp-server.js";
import { BASE_URL, PROMPT, createHarness, disconnectAll } from "./client-harness.js";

afterEach(disconnectAll);

describe("AcpHttpClient speaking ACP 1 (the default)", () => {
  it.each([2, "2025-06-18", 0])("accepts an initialize answered with protocolVersion %p", async (answered) => {
    const h = createHarness();
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: answered });
    await expect(h.client.initialize()).resolves.toMatchObject({ protocolVersion: answered });
    expect(h.client.protocolVersion).toBe(1);
    expect(h.client.state).not.toBe("closed");
  });

  it.each([{ messageId: null }, { messageId: 7 }, { error: "quota" }])(
    "reads a prompt answer with extra fields %p as before (passed through)",
    async (extra) => {
      const h = createHarness();
      h.server.onPost = (request) => {
        const message = bodyOf(request);
        const answer = message.method === "initialize" ? { protocolVersion: 1 } : { stopReason: "end_turn", ...extra };
        return rpcResult(message.id, answer);
      };
      await h.client.initialize();
      await expect(h.client.prompt(PROMPT)).resolves.toEqual({ stopReason: "end_turn", ...extra });
    },
  );

  it.each(["2025-06-18", 0, 3])("reads a protocolVersion option %p without a profile as 1", (version) => {
    const client = new AcpHttpClient({ baseUrl: BASE_URL, protocolVersion: version });
    expect(client.protocolVersion).toBe(1);
    void client.disconnect();
  });
});
