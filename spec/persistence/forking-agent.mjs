#!/usr/bin/env node
// The scripted agent (its path in SCRIPTED_AGENT_PATH) with ACP's `session/fork` and
// `session/resume` on top, for the persistence specs: it runs the scripted agent as a child and
// passes every line through, except that `session/fork` becomes a `session/new` (a new session
// with the parent's cwd), `session/resume` becomes a `session/load`, and `initialize` advertises
// `sessionCapabilities.fork` and `.resume`. The server installs this file by copying it, so it
// finds the scripted agent through the environment, not a relative path.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const script = process.env.SCRIPTED_AGENT_PATH;
if (!script) throw new Error("forking-agent: SCRIPTED_AGENT_PATH is not set");
const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
const RENAMED = { "session/fork": "session/new", "session/resume": "session/load" };
/** Ids of the initialize requests, whose answers get the extra capabilities. */
const initializing = new Set();
const parse = (line) => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", (line) => {
  let msg = parse(line);
  if (msg === undefined) return void child.stdin.write(`${line}\n`);
  if (msg?.method === "initialize") initializing.add(JSON.stringify(msg.id));
  const renamed = RENAMED[msg?.method];
  if (renamed) {
    const { sessionId, ...rest } = msg.params ?? {};
    msg = { ...msg, method: renamed, params: renamed === "session/load" ? { sessionId, ...rest } : rest };
  }
  child.stdin.write(`${JSON.stringify(msg)}\n`);
});

createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
  const msg = parse(line);
  if (msg === undefined) return void process.stdout.write(`${line}\n`);
  const key = JSON.stringify(msg?.id);
  if (msg?.result?.agentCapabilities && initializing.delete(key)) {
    const capabilities = msg.result.agentCapabilities;
    capabilities.sessionCapabilities = { ...capabilities.sessionCapabilities, fork: {}, resume: {} };
  }
  process.stdout.write(`${JSON.stringify(msg)}\n`);
});

process.stdin.on("end", () => child.stdin.end());
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
