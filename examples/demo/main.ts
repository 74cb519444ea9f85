// The live demo: `npm start`. Starts a real sandbox-agent server with the demo agent through the
// `local()` provider (or uses the server given with --url), runs one prompt turn and renders it.
import {
  SandboxAgentClient,
  startSandbox,
  type PermissionContext,
  type PermissionRequest,
  type StartedSandbox,
} from "sandbox-agent-rx";
import { demoAgent, local } from "sandbox-agent-rx/local";
import { parseArgs, USAGE, type DemoArgs } from "./args.js";
import { askPermission, replyFor, StreamLines, type Decision } from "./permission.js";
import { TerminalRenderer } from "./render.js";

async function main(args: DemoArgs): Promise<number> {
  const out = new TerminalRenderer(process.stdout);
  const { bold, dim, green, red } = out.style;
  let sandbox: StartedSandbox | undefined;
  let client: SandboxAgentClient | undefined;
  // Created at the first question: reading stdin earlier would keep a demo run with --yes waiting on it.
  let answers: StreamLines | undefined;

  // One cleanup for every way out: normal end, error, Ctrl-C, SIGTERM.
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      out.stopSpinner();
      answers?.close();
      await client?.disconnect().catch(() => undefined);
      await sandbox?.destroy();
    })());
  const interrupt = (): void => {
    out.line(red("Interrupted; shutting down."));
    void cleanup().finally(() => process.exit(130));
  };
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(sig, interrupt);

  const decide = async (request: PermissionRequest, { signal }: PermissionContext): Promise<Decision> => {
    const what = request.toolCall.title ?? request.toolCall.kind ?? request.toolCall.toolCallId;
    if (args.yes) {
      out.line(`${bold("?")} Permission requested: ${what} -> ${green("allowed")} ${dim("(--yes)")}`);
      return "allow";
    }
    out.stopSpinner();
    out.line(`${bold("?")} Permission requested: ${what}`);
    process.stdout.write(`  Allow? ${dim("[y/N]")} `);
    answers ??= new StreamLines(process.stdin);
    const answer = await askPermission(answers, () => process.stdout.write(`${process.stdin.isTTY ? "" : "\n"}  Please answer y or n: `), signal);
    const verdict = answer.decision === "allow" ? green("allowed") : red("rejected");
    // A terminal echoed the answer already; piped input is not echoed, so say what was read.
    const how = answer.line === null
      ? dim(signal.aborted ? "(the agent withdrew the question)" : "(no answer: stdin closed; --yes approves)")
      : process.stdin.isTTY ? "" : dim(`(answered ${JSON.stringify(answer.line)})`);
    out.line(`${verdict} ${how}`.trimEnd());
    out.startSpinner("working");
    return answer.decision;
  };

  try {
    const onPermissionRequest = async (request: PermissionRequest, context: PermissionContext) =>
      replyFor(request, await decide(request, context));
    if (args.url === undefined) {
      out.line(dim("Starting a local sandbox-agent server with the demo agent..."));
      const provider = local({ mockAgent: demoAgent });
      sandbox = await startSandbox({ sandbox: provider, agent: args.agent, debug: args.debug, onPermissionRequest });
      client = sandbox.client;
      const pid = provider.details(sandbox.info.id)?.pid;
      const where = `${sandbox.info.baseUrl}${dim(` (local, pid ${pid})`)}`;
      out.line(`${bold("Server")} ${where}  ${bold("agent")} ${args.agent}`);
    } else {
      out.line(`${bold("Server")} ${args.url}  ${bold("agent")} ${args.agent}`);
      client = new SandboxAgentClient({
        baseUrl: args.url,
        agent: args.agent,
        ...(args.token ? { token: args.token } : {}),
        ...(args.cwd ? { cwd: args.cwd } : {}),
        debug: args.debug,
        onPermissionRequest,
      });
    }
    const info = sandbox?.connectInfo ?? (await client.ready);
    out.line(`${bold("Connected")} ${info?.agentInfo ? `${info.agentInfo.name} ${info.agentInfo.version ?? ""}`.trim() : args.agent} ${dim(`(${info?.api ?? "?"} API)`)}`);
    client.parseErrors$.subscribe((error) => out.line(red(`parse error (${error.source}): ${error.error}`)));
    // Some agents take their key through `authenticate` (Codex: openai-api-key, read from the server's env).
    if (args.auth) await client.request("authenticate", { methodId: args.auth });

    const session = await client.newSession({ metadata: { title: "Demo session", variant: "demo" } });
    out.line(`${bold("Session")} ${session.sessionId}`);
    out.line(`${bold("Prompt")} ${args.prompt}`);

    const view = client.session(session.sessionId);
    const rendering = view.events$.subscribe((event) => out.handle(event));
    out.startSpinner("working");
    try {
      const outcome = await view.prompt(args.prompt);
      out.stopReason(outcome.stopReason);
    } finally {
      rendering.unsubscribe();
      out.stopSpinner();
    }

    out.sessions((await client.listSessions()).sessions);
    return 0;
  } catch (error) {
    out.stopSpinner();
    out.line(red(`Error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`));
    return 1;
  } finally {
    await cleanup();
    out.line(dim("Disconnected."));
  }
}

let args: DemoArgs;
try {
  args = parseArgs(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
} else {
  process.exitCode = await main(args);
}
