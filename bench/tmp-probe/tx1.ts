import { manySessions, sessionsBody } from "../scenarios/many-sessions.js";
const U = 200000; const n = Number(process.env.N);
const b = sessionsBody(n, U);
for (let r = 0; r < 3; r++) { const x = await manySessions("transcript", n, b, U); console.log(n, (x.cpuMs * 1000 / U).toFixed(2)); }
process.exit(0);
