import { manySessions, sessionsBody } from "../scenarios/many-sessions.js";
const U = Number(process.env.U ?? 100000);
for (const mode of (process.env.MODES ?? "acp,events,transcript").split(",") as any[]) {
  for (const n of [1, 10, 100, 1000]) {
    const body = sessionsBody(n, U);
    const r = await manySessions(mode, n, body, U);
    console.log(mode, n, (r.cpuMs * 1000 / U).toFixed(2), "µs/update", (r.heapPerIdleSession / 1024).toFixed(2), "KB/session");
  }
}
process.exit(0);
