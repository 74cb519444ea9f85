// `npm start` end to end, non-interactively: the real server, the demo agent, the terminal renderer.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { isRunning, repoRoot, runExample } from "./run-example.js";

const TIMEOUT = 60_000;

describe("the live demo (examples/demo)", () => {
  it("streams a turn, approves the permission, lists sessions and cleans up", async () => {
    const result = await runExample("examples/demo/main.ts", ["--yes", "--prompt", "quick demo"]);
    const out = result.stdout;
    if (result.code !== 0) throw new Error(`demo exited ${result.code}\nstdout:\n${out}\nstderr:\n${result.stderr}`);

    // Piped stdout: plain text, no ANSI escapes.
    expect(out).not.toMatch(/\x1b\[/);
    // The streamed markdown answer, reassembled from its chunks.
    expect(out).toContain("## Added a greeting helper");
    expect(out).toContain("export function greet(name: string): string {");
    expect(out).toContain("Thinking: The request is \"quick demo\".");
    expect(out).toMatch(/\[x\] Write src\/greeting\.ts/);
    // Tool calls with their status.
    expect(out).toMatch(/✓ Tool Read src\/index\.ts \[completed\]/);
    expect(out).toMatch(/✓ Tool Write src\/greeting\.ts \[completed\]/);
    expect(out).toContain("Permission requested: Write src/greeting.ts -> allowed (--yes)");
    expect(out).toContain("Stop reason: end_turn");
    expect(out).toMatch(/Sessions \(1\)\n\s+session-[0-9a-f]+\s+title: "quick demo"/);
    expect(out).toContain("Disconnected.");

    const pid = Number(/\(local, pid (\d+)\)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid)).toBe(false);
    const baseUrl = /Server (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    await expect(fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, TIMEOUT);

  it("reports a failed turn and still exits cleanly", async () => {
    const result = await runExample("examples/demo/main.ts", ["--prompt", "quick fail"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("Demo agent failed on purpose");
    const pid = Number(/\(local, pid (\d+)\)/.exec(result.stdout)?.[1]);
    expect(isRunning(pid)).toBe(false);
  }, TIMEOUT);

  it("prints usage for --help and rejects unknown options", async () => {
    const help = await runExample("examples/demo/main.ts", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--url URL");
    const bad = await runExample("examples/demo/main.ts", ["--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option: --bogus");
  }, TIMEOUT);

  it("shuts down on Ctrl-C (SIGINT) in the middle of a turn, leaving no server behind", async () => {
    // Without "quick" the demo agent takes a few seconds, so the signal lands mid-turn.
    const child = spawn(process.execPath, ["--import", "tsx", "examples/demo/main.ts", "--yes", "--prompt", "slow demo"], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the turn never started:\n${out}`)), 30_000);
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("Tool Read src/index.ts")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    expect(out).toContain("Interrupted; shutting down.");
    const pid = Number(/\(local, pid (\d+)\)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid)).toBe(false);
  }, TIMEOUT);
});

/** Starts the demo with a piped stdin; `answer` is written in one write once the question is asked. */
async function answerOnce(answer: string, prompt = "quick demo"): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "examples/demo/main.ts", "--prompt", prompt], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const closed = once(child, "close") as Promise<[number | null]>;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the question never came:\n${out}\n${err}`));
    }, 30_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("Allow? [y/N]")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdin.write(answer);
  const [code] = await closed;
  return { code, out };
}

describe("the live demo's permission question", () => {
  it("takes n and Enter arriving in one write as a no", async () => {
    const { code, out } = await answerOnce("n\n");
    expect(code).toBe(0);
    expect(out).toContain('Permission requested: Write src/greeting.ts');
    expect(out).toContain('rejected (answered "n")');
    expect(out).toContain("## Change not applied");
    expect(out).toContain("Stop reason: end_turn");
  }, TIMEOUT);

  it("accepts yes in any case, after asking again on an answer it does not know", async () => {
    const { code, out } = await answerOnce("maybe\nYES\n");
    expect(code).toBe(0);
    expect(out).toContain("Please answer y or n");
    expect(out).toContain('allowed (answered "YES")');
    expect(out).toContain("## Added a greeting helper");
  }, TIMEOUT);

  it("without a terminal and no answer (stdin closed), rejects and says so", async () => {
    const result = await runExample("examples/demo/main.ts", ["--prompt", "quick demo"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/rejected \(no answer: stdin closed; --yes approves\)/);
    expect(result.stdout).toContain("## Change not applied");
  }, TIMEOUT);
});
