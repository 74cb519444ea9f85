/**
 * Contract §1.4: once SANDBOX_AGENT_ACP_REQUEST_TIMEOUT_MS has passed, sandbox-agent 0.4.2 never
 * answers the POST (no 504), but still puts the agent's late response on the event stream.
 *
 * The timeout is 2000 ms rather than a few hundred: the first POST spawns the agent process, and a
 * Node agent needs ~0.7 s to answer `initialize`. Past the timeout that POST would hang too, and as
 * the server has no event stream to offer before the first POST returns (GET is 404 until the
 * instance exists, and the client opens it only after a successful POST), the client would then wait
 * for ever. A request timeout shorter than the agent's start-up time is therefore not survivable.
 */
import { AcpHttpClient } from "../../../lib/acp-http/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { newSessionParams, sandboxClient, textPrompt, waitFor } from "./helpers.js";

interface PostRecord {
  body: string;
  outcome: "pending" | "answered" | "failed";
  failure?: string;
}

const REQUEST_TIMEOUT_MS = 2000;
const AGENT_SLEEP_MS = 2600;

let server: SandboxAgentServer;
const clients: AcpHttpClient[] = [];

beforeAll(async () => {
  server = await startSandboxAgent({ env: { SANDBOX_AGENT_ACP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.disconnect()));
});

afterAll(async () => {
  await server?.stop();
});

it("a prompt whose POST never returns resolves from the event stream copy, and the POST is released", async () => {
  const posts: PostRecord[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const method = input instanceof Request ? input.method : (init?.method ?? "GET");
    if (method !== "POST") return fetch(input, init);
    const body = input instanceof Request ? await input.clone().text() : String(init?.body ?? "");
    const entry: PostRecord = { body, outcome: "pending" };
    posts.push(entry);
    try {
      const response = await fetch(input, init);
      entry.outcome = "answered";
      return response;
    } catch (error) {
      entry.outcome = "failed";
      entry.failure = (error as Error).name;
      throw error;
    }
  };
  const acp = sandboxClient(server.baseUrl, "hanging", { fetch: recordingFetch });
  clients.push(acp);
  await acp.initialize();
  const { sessionId } = await acp.newSession(newSessionParams());

  const started = Date.now();
  const result = await acp.prompt(textPrompt(sessionId, `sleep ${AGENT_SLEEP_MS}`));
  const elapsed = Date.now() - started;

  expect(result).toMatchObject({ stopReason: "end_turn", _meta: { scripted: { verb: "sleep" } } });
  expect(elapsed).toBeGreaterThanOrEqual(AGENT_SLEEP_MS - 100);
  expect(elapsed).toBeLessThan(AGENT_SLEEP_MS + 4000);
  const promptPost = posts.find((entry) => entry.body.includes('"session/prompt"'));
  // The server never answered this POST: the result came from the stream.
  expect(promptPost?.outcome).toBe("pending");

  // The abandoned POST is let go of shortly after (it would otherwise hang forever).
  await waitFor(() => promptPost?.outcome !== "pending", 5000, "the hanging POST to be released");
  expect(promptPost).toMatchObject({ outcome: "failed", failure: "AbortError" });

  // The connection is still usable.
  await expect(acp.prompt(textPrompt(sessionId, "chunks 1"))).resolves.toMatchObject({ stopReason: "end_turn" });
});
