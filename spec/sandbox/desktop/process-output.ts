// What a process launched on the desktop printed, read through the server's process log route.
import * as v from "valibot";
import type { ControlPlaneHttp } from "../../../lib/sandbox/server/control-plane.js";

const LogsSchema = v.looseObject({ entries: v.array(v.looseObject({ data: v.string() })) });

/** The process's stdout so far, decoded. */
export async function processOutput(http: ControlPlaneHttp, processId: string): Promise<string> {
  const path = `/v1/processes/${processId}/logs`;
  const logs = await http.json("logs", LogsSchema, "get", path, { query: { stream: "stdout" } });
  return logs.entries.map((entry) => Buffer.from(entry.data, "base64").toString("utf8")).join("");
}

/** Polls a process's output until `done` holds or 10 s pass (xev writes each event as it happens). */
export async function outputUntil(
  http: ControlPlaneHttp,
  processId: string,
  done: (output: string) => boolean,
): Promise<string> {
  const deadline = Date.now() + 10_000;
  let output = "";
  while (Date.now() < deadline) {
    output = await processOutput(http, processId);
    if (done(output)) return output;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return output;
}
