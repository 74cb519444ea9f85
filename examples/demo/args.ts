// Command-line options of the demo. Kept free of side effects so that it can be unit-tested.

export interface DemoArgs {
  /** The user's own server; when absent the demo starts a local one. */
  url: string | undefined;
  /** The agent to drive; defaults to `mock`, which is the demo agent on the local server. */
  agent: string;
  token: string | undefined;
  /** The session's working directory on that server; the client's default when absent. */
  cwd: string | undefined;
  /** An authentication method of the agent to use before the session (`authenticate`), e.g. Codex's. */
  auth: string | undefined;
  prompt: string;
  /** Approve permission requests without asking. */
  yes: boolean;
  debug: boolean;
  help: boolean;
}

export const DEFAULT_PROMPT = "Add a small greeting helper to this project";

export const USAGE = `Usage: npm start -- [options]

  --prompt TEXT   what to ask the agent (default: "${DEFAULT_PROMPT}")
                  the demo agent reacts to "quick" (no delays) and "fail" (errors)
  --yes           approve permission requests without asking
  --url URL       use your own sandbox-agent server instead of starting one
  --agent NAME    agent to drive on that server (default: mock)
  --token TOKEN   bearer token for that server (or SANDBOX_AGENT_TOKEN)
  --cwd DIR       the session's working directory on that server
  --auth METHOD   authenticate with this method of the agent first (Codex: openai-api-key)
  --debug         log what the client does (tokens are never logged)
  --help          show this text`;

export function parseArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): DemoArgs {
  const args: DemoArgs = {
    url: undefined,
    agent: "mock",
    token: env.SANDBOX_AGENT_TOKEN || undefined,
    cwd: undefined,
    auth: undefined,
    prompt: DEFAULT_PROMPT,
    yes: false,
    debug: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    // Both `--flag value` and `--flag=value`.
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0 && arg.startsWith("--")) return arg.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case "--url":
        args.url = value().replace(/\/+$/, "");
        break;
      case "--agent":
        args.agent = value();
        break;
      case "--token":
        args.token = value();
        break;
      case "--cwd":
        args.cwd = value();
        break;
      case "--auth":
        args.auth = value();
        break;
      case "--prompt":
        args.prompt = value();
        break;
      case "--yes":
      case "-y":
        args.yes = true;
        break;
      case "--debug":
        args.debug = true;
        break;
      case "--help":
      case "-h":
        args.help = true;
        break;
      default:
        throw new Error(`unknown option: ${arg}`);
    }
  }
  return args;
}
