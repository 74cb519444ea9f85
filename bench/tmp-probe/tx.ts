import { manySessions, sessionsBody } from "../scenarios/many-sessions.js";
const U = Number(process.env.U ?? 200000);
const b1 = sessionsBody(1, U), b2 = sessionsBody(1000, U);
await manySessions("transcript", 1000, b2, U);
for (let r = 0; r < 2; r++) for (const [n, b] of [[1, b1], [1000, b2]] as const) {
  const x = await manySessions("transcript", n, b, U);
  console.log(n, (x.cpuMs * 1000 / U).toFixed(2));
}
process.exit(0);
