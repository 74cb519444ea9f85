/** Builds the process API the way the client will (a ControlPlaneHttp plus its settings), for the specs. */
import WebSocket from "ws";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import { ControlPlaneHttp, type HttpSettings } from "../../../lib/sandbox/server/control-plane.js";
import { Processes, type ProcessesOptions } from "../../../lib/sandbox/server/processes/index.js";
import type { ProcessInfo } from "../../../lib/sandbox/server/processes/schemas.js";

export const wsConstructor = WebSocket as unknown as WebSocketConstructor;

export function processesFor(baseUrl: string, token?: HttpSettings["token"], options: ProcessesOptions = { WebSocket: wsConstructor }): Processes {
  const settings: HttpSettings = { baseUrl, token, headers: undefined, fetch: undefined };
  return new Processes(new ControlPlaneHttp(settings), settings, options);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `get` until the process has exited; rejects after `timeoutMs`. */
export async function untilExited(get: () => Promise<ProcessInfo>, timeoutMs = 10_000): Promise<ProcessInfo> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await get();
    if (info.status === "exited") return info;
    if (Date.now() > deadline) throw new Error(`process ${info.id} still running after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Resolves once `condition()` holds (polled every 20 ms); rejects after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export const text = (chunks: Uint8Array[]): string => Buffer.concat(chunks).toString("utf8");
