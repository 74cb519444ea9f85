// The client with promises only: no RxJS knowledge needed.
//
//   node --import tsx examples/script/main.ts --url http://127.0.0.1:2468 --agent mock [--token T]
//
// Against the demo agent (`npm start` uses it), use a prompt containing "quick" to skip its delays.
import { parseArgs } from "node:util";
import { SandboxAgentClient } from "sandbox-agent-rx";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:2468" },
    agent: { type: "string", default: "mock" },
    token: { type: "string" },
    prompt: { type: "string", default: "quick: add a greeting helper" },
  },
});

const client = new SandboxAgentClient({
  baseUrl: values.url,
  agent: values.agent,
  ...(values.token ? { token: values.token } : {}),
  // Approve everything the agent asks; a real application would ask its user.
  onPermissionRequest: (request) => {
    const allow = request.options.find((option) => option.kind === "allow_once");
    console.log(`permission: ${request.toolCall.title ?? request.toolCall.toolCallId} -> ${allow ? "allow" : "cancel"}`);
    return allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" };
  },
});

try {
  const health = await client.health();
  console.log(`health: ${health.status}`);

  // The constructor already started connecting; `ready` settles with the outcome.
  const info = await client.ready;
  console.log(`connected to ${info?.agentInfo?.name ?? values.agent} over the ${info?.api} API`);

  const session = await client.newSession({ metadata: { title: "Promise example" } });
  console.log(`session: ${session.sessionId}`);

  // Collect the answer's text while the prompt runs; `subscribe` is the one RxJS call needed.
  let answer = "";
  const collecting = client.session(session.sessionId).events$.subscribe((event) => {
    if (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk") answer += event.update.content.text ?? "";
  });
  const outcome = await client.prompt(session.sessionId, values.prompt);
  collecting.unsubscribe();
  console.log(`stop reason: ${outcome.stopReason}`);
  console.log(`answer:\n${answer}`);

  const { sessions } = await client.listSessions();
  for (const listed of sessions) console.log(`listed: ${listed.sessionId} ${JSON.stringify(listed.title ?? null)}`);
} catch (error) {
  console.error(`failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  process.exitCode = 1;
} finally {
  await client.disconnect();
}
