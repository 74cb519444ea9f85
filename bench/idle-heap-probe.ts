// @ts-nocheck
// Probe for scenario 5b: heap per idle connection (as bench/scenarios/memory.ts makes them), with an
// optional heap-snapshot split by constructor. `node --import tsx --expose-gc bench/idle-heap-probe.ts [count] [snapshot]`.
import { writeHeapSnapshot } from "node:v8";
import { readFileSync } from "node:fs";
import { ours } from "./contenders/ours.js";
import { idleConnections } from "./scenarios/memory.js";
import { fakeServer } from "./support/synthetic.js";
import { memoryAfterGc, sleep } from "./support/measure.js";
import type { BenchConnection } from "./contenders/index.js";


const count = Number(process.argv[2] ?? 1000);
const snapshot = process.argv[3] === "snapshot";

interface Node { type: string; name: string; self: number }
function aggregate(file: string): Map<string, { count: number; size: number }> {
  const data = JSON.parse(readFileSync(file, "utf8"));
  const fields: string[] = data.snapshot.meta.node_fields;
  const types: string[] = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type"), nameAt = fields.indexOf("name"), sizeAt = fields.indexOf("self_size");
  const out = new Map<string, { count: number; size: number }>();
  const edgeFields: string[] = data.snapshot.meta.edge_fields;
  const edgeTypes: string[] = data.snapshot.meta.edge_types[0];
  const ew = edgeFields.length;
  const ecAt = fields.indexOf("edge_count");
  const owner = new Int32Array(data.nodes.length / width).fill(-1);
  const ownerEdge: string[] = new Array(data.nodes.length / width);
  let e = 0;
  for (let n = 0; n < data.nodes.length / width; n++) {
    const ec = data.nodes[n * width + ecAt];
    for (let k = 0; k < ec; k++, e += ew) {
      const et = edgeTypes[data.edges[e]];
      if (et === "weak" || et === "shortcut") continue;
      const to = data.edges[e + 2] / width;
      if (owner[to] === -1) {
        owner[to] = n;
        const nameOrIndex = data.edges[e + 1];
        ownerEdge[to] = et === "element" || et === "hidden" ? `[${et}]` : String(data.strings[nameOrIndex]);
      }
    }
  }
  const label = (n: number) => { const t = types[data.nodes[n * width + typeAt]]; return `${t}:${String(data.strings[data.nodes[n * width + nameAt]]).slice(0, 40)}`; };
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]];
    let name = type === "object" || type === "closure" || type === "native" || type === "hidden" || type === "code" ? `${type}:${data.strings[data.nodes[i + nameAt]]}` : type;
    if ((process.env.BY_OWNER === "all" || type === "array" || name === "object:system / Context" || type === "hidden") && process.env.BY_OWNER) { const o = owner[i / width]; name += ` <- ${o >= 0 ? label(o) : "?"}.${ownerEdge[i / width]}`; }
    const entry = out.get(name) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += data.nodes[i + sizeAt];
    out.set(name, entry);
  }
  return out;
}

async function main(): Promise<void> {
  // Warm once (code compiled, modules loaded), then measure.
  const warm = await idleConnections(ours, 50);
  void warm;
  await sleep(3000); // closed connections linger until their DELETE's bound
  if (!snapshot) {
    for (let r = 0; r < 3; r++) {
      await sleep(3000); // the previous round's closed connections linger until their DELETE's bound
      const result = await idleConnections(ours, count);
      console.log(`heap per idle connection ${(result.heapPerConnection / 1024).toFixed(2)} KB`);
    }
    return;
  }
  const fake = fakeServer();
  memoryAfterGc();
  const before = writeHeapSnapshot("/tmp/heapprobe/before.heapsnapshot");
  const connections: BenchConnection[] = [];
  for (let i = 0; i < count; i++) {
    const c = ours.connect({ baseUrl: "http://bench.invalid", path: `/v1/acp/idle-${i}`, fetch: fake.fetch });
    await c.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    connections.push(c);
  }
  while (connections.some((c) => !c.streamOpen)) await sleep(10);
  memoryAfterGc();
  const after = writeHeapSnapshot("/tmp/heapprobe/after.heapsnapshot");
  if (process.env.SCRIPTS) {
    const { Session } = await import("node:inspector");
    const session = new Session();
    session.connect();
    const scripts: string[] = [];
    session.on("Debugger.scriptParsed", (m) => scripts.push(`${m.params.scriptId} ${m.params.url}`));
    await new Promise<void>((done) => session.post("Debugger.enable", () => done()));
    const { writeFileSync } = await import("node:fs");
    writeFileSync("/tmp/heapprobe/scripts.txt", scripts.join("\n"));
    for (const line of scripts) {
      const [id, url] = line.split(" ");
      if (!url?.includes("/wt/heap/")) continue;
      const source = await new Promise<string>((done) => session.post("Debugger.getScriptSource", { scriptId: id }, (_e, r) => done(r?.scriptSource ?? "")));
      writeFileSync(`/tmp/heapprobe/src-${id}.js`, source);
    }
  }
  const a = aggregate(before), b = aggregate(after);
  const rows: [string, number, number][] = [];
  for (const [name, entry] of b) {
    const prev = a.get(name) ?? { count: 0, size: 0 };
    const dc = (entry.count - prev.count) / count, ds = (entry.size - prev.size) / count;
    if (Math.abs(ds) >= 20) rows.push([name, dc, ds]);
  }
  rows.sort((x, y) => y[2] - x[2]);
  let total = 0;
  for (const [, , s] of rows) total += s;
  for (const [name, c, s] of rows) console.log(`${s.toFixed(0).padStart(7)} B ${c.toFixed(2).padStart(7)}×  ${name.slice(0, 100)}`);
  console.log(`total (rows shown) ${(total / 1024).toFixed(2)} KB per connection`);
  await Promise.all(connections.map((c) => c.close()));
}
await main();
