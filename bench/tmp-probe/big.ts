import { bigMessage, bigText, longMessage } from "../scenarios/big-message.js";
const MB = Number(process.env.MB ?? 5);
const text = bigText(MB * 1e6);
for (const path of (process.env.PATHS ?? "sse,post,ws").split(",") as any[]) {
  for (const chunk of [0, 1024, 0, 1024]) {
    const r = await bigMessage(path, text, chunk);
    console.log(path, chunk, (r.bytes / 1e6).toFixed(1), "MB", r.sample.wallMs.toFixed(0), "ms wall", r.sample.cpuMs.toFixed(0), "ms cpu");
  }
}
if (process.env.TX) for (const n of [100_000, 1_000_000]) { const r = longMessage(n); console.log("transcript", n, r.sample.cpuMs.toFixed(0), "ms cpu", (r.sample.cpuMs*1000/n).toFixed(2), "µs/chunk"); }
process.exit(0);
