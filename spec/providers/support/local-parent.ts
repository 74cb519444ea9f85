// A parent process for the "child dies with its parent" tests: starts one local() sandbox, runs a
// prompt (so an agent process exists too), prints {pid, port, home, agentPids} as one JSON line, then
// waits to be killed, or ends itself as argv[2] says: "wait" (default), "exit" (process.exit), or
// "quiet" (prints nothing, destroys the sandbox and returns normally). With argv[3] "strays" it also
// starts processes outside the server's process group (see stray-processes.ts) and adds their pids
// as `strayPids`.
import { local } from "../../../lib/providers/local/index.js";
import { startSandbox } from "../../../lib/sandbox/index.js";
import { groupMembers } from "../../../lib/providers/local/process-group.js";
import { fileURLToPath } from "node:url";
import { spawnStrays } from "./stray-processes.js";

const agent = fileURLToPath(new URL("../../support/scripted-agent.mjs", import.meta.url));
const provider = local({ mockAgent: agent });
const started = await startSandbox({ sandbox: provider, agent: "mock" });
const session = await started.client.newSession();
await started.client.prompt(session.sessionId, [{ type: "text", text: "hello" }]);
if (process.argv[2] === "quiet") {
  await started.destroy();
  process.exit();
}
const details = provider.details(started.info.id);
const agentPids = (groupMembers(details?.pid ?? 0) ?? []).map((m) => m.pid);
const strays = process.argv[3] === "strays" && details ? await spawnStrays(started.client, details.home) : undefined;
const strayPids = strays ? [strays.tty, strays.clearedEnv, strays.orphan] : [];
process.stdout.write(`${JSON.stringify({ pid: details?.pid, port: details?.port, home: details?.home, agentPids, strayPids })}\n`);
if (process.argv[2] === "exit") process.exit(0);
// Keep the event loop alive until a signal ends us (the client alone may not).
setInterval(() => undefined, 60_000);
