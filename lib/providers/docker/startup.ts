// Starting a created container and waiting for its server: ready, timed out, stopped during start-up,
// or stopped because the port was taken meanwhile (the caller then tries another port).
import type Dockerode from "dockerode";
import { SandboxStartError, type SandboxInfo } from "../../sandbox/kit.js";
import { pollHealth } from "../health-poll.js";
import { engineCall, shortId } from "./engine-call.js";

const PROVIDER = "docker";
const STATE_POLL_MS = 200;

export interface StartupWait {
  port: number;
  token: string | undefined;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  defaultCwd: string;
}

/** Starts `container`; resolves with where its server answers, or "port-in-use". */
export async function startAndWait(
  container: Dockerode.Container,
  wait: StartupWait,
): Promise<SandboxInfo | "port-in-use"> {
  const { port, token, signal } = wait;
  await engineCall("start", () => container.start());
  const baseUrl = `http://127.0.0.1:${port}`;
  const polling = new AbortController();
  const gone = untilStopped(container, polling.signal);
  try {
    const outcome = await pollHealth(baseUrl, {
      ...(token !== undefined ? { token } : {}),
      ...(signal ? { signal } : {}),
      timeoutMs: wait.timeoutMs,
      gone,
    });
    if (outcome === "ready") {
      return { id: container.id, baseUrl, ...(token !== undefined ? { token } : {}), defaultCwd: wait.defaultCwd };
    }
    const output = await tail(container, token);
    if (outcome === "timeout") {
      const detail = `container ${shortId(container.id)} did not answer ${baseUrl}/v1/health in time`;
      throw new SandboxStartError(PROVIDER, "timeout", detail, output);
    }
    if (/Address in use|address already in use/i.test(output)) return "port-in-use";
    const detail = `container ${shortId(container.id)} stopped during startup`;
    throw new SandboxStartError(PROVIDER, "exited", detail, output);
  } finally {
    polling.abort();
  }
}

/**
 * Settles when the container is no longer running, or once `stop` aborts (the health wait is over
 * then). Polled: the Engine's wait endpoint is a long poll that cannot be cancelled cleanly.
 */
async function untilStopped(container: Dockerode.Container, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    const state = await container.inspect().then((d) => d.State, () => undefined);
    if (!state?.Running) return;
    await new Promise((r) => setTimeout(r, STATE_POLL_MS));
  }
}

/** The container's last output lines, token redacted, for the start error ("" when unreadable). */
async function tail(container: Dockerode.Container, token: string | undefined): Promise<string> {
  try {
    const buffer = (await container.logs({ stdout: true, stderr: true, tail: 60, follow: false })) as unknown as Buffer;
    return redact(demuxLogs(buffer).trimEnd(), [token]);
  } catch {
    return "";
  }
}

// Container output for error messages: the Engine multiplexes stdout and stderr of a non-TTY
// container into frames of [stream, 0, 0, 0, size (u32 big-endian)] followed by the payload.

/** The payloads of a multiplexed log buffer as text (a buffer that is not framed is returned as is). */
export function demuxLogs(buffer: Buffer): string {
  const parts: string[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const size = buffer.readUInt32BE(offset + 4);
    if (stream === undefined || stream > 2 || buffer[offset + 1] !== 0 || offset + 8 + size > buffer.length) {
      return buffer.toString("utf8");
    }
    parts.push(buffer.subarray(offset + 8, offset + 8 + size).toString("utf8"));
    offset += 8 + size;
  }
  return parts.join("");
}

/** `text` with every secret replaced. */
export function redact(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}
