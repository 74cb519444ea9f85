// Probe for scenario 5b: the heap an idle connection of ours keeps (made as bench/scenarios/memory.ts
// makes them: initialized against the in-process server, GET open, nothing arriving).
//
//   node --import tsx --expose-gc bench/idle-heap-probe.ts [count=1000]             # steady rounds
//   node --import tsx --expose-gc bench/idle-heap-probe.ts [count] snapshot         # what it holds
//
// Rounds: three, each after the previous round's closed connections are gone (they linger until
// their DELETE's bound), so each reads the same state; scenario 5b itself reads one round.
// `snapshot`: two heap snapshots (before and after the connections, in /tmp/heapprobe), their
// difference per connection by node type and constructor; `BY_OWNER=all` also names what holds each
// object (the first retaining edge), which tells closures' `properties` (under tsx, esbuild's
// keepNames dictionaries) and Map tables apart by owner.
import { mkdirSync, readFileSync } from "node:fs";
import { writeHeapSnapshot } from "node:v8";
import type { BenchConnection } from "./contenders/index.js";
import { ours } from "./contenders/ours.js";
import { idleConnections } from "./scenarios/memory.js";
import { memoryAfterGc, sleep } from "./support/measure.js";
import { fakeServer } from "./support/synthetic.js";

const count = Number(process.argv[2] ?? 1000);
const snapshot = process.argv[3] === "snapshot";
const byOwner = process.env.BY_OWNER;
const DIR = "/tmp/heapprobe";

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

interface Entry {
  count: number;
  size: number;
}

/** Count and self size per label: `type:constructor`, and with BY_OWNER the first retainer's label and edge. */
function aggregate(file: string): Map<string, Entry> {
  const data = JSON.parse(readFileSync(file, "utf8")) as HeapSnapshot;
  const { node_fields: fields, node_types, edge_fields, edge_types } = data.snapshot.meta;
  const types = node_types[0];
  const edgeTypes = edge_types[0];
  const width = fields.length;
  const edgeWidth = edge_fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const edgeCountAt = fields.indexOf("edge_count");
  const nodes = data.nodes.length / width;
  const owner = new Int32Array(nodes).fill(-1);
  const ownerEdge: string[] = new Array<string>(nodes);
  if (byOwner) {
    for (let node = 0, edge = 0; node < nodes; node++) {
      const edges = data.nodes[node * width + edgeCountAt] ?? 0;
      for (let k = 0; k < edges; k++, edge += edgeWidth) {
        const edgeType = edgeTypes[data.edges[edge] ?? 0];
        if (edgeType === "weak" || edgeType === "shortcut") continue;
        const to = (data.edges[edge + 2] ?? 0) / width;
        if (owner[to] !== -1) continue;
        owner[to] = node;
        ownerEdge[to] = edgeType === "element" || edgeType === "hidden" ? `[${edgeType}]` : String(data.strings[data.edges[edge + 1] ?? 0]);
      }
    }
  }
  const label = (node: number): string => {
    const type = types[data.nodes[node * width + typeAt] ?? 0] ?? "?";
    const named = ["object", "closure", "native", "hidden", "code"].includes(type);
    return named ? `${type}:${String(data.strings[data.nodes[node * width + nameAt] ?? 0]).slice(0, 60)}` : type;
  };
  const out = new Map<string, Entry>();
  for (let node = 0; node < nodes; node++) {
    let name = label(node);
    const holder = owner[node] ?? -1;
    if (byOwner && holder >= 0) name += ` <- ${label(holder)}.${ownerEdge[node]}`;
    const entry = out.get(name) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += data.nodes[node * width + sizeAt] ?? 0;
    out.set(name, entry);
  }
  return out;
}

async function rounds(): Promise<void> {
  for (let round = 0; round < 3; round++) {
    await sleep(3000);
    const result = await idleConnections(ours, count);
    console.log(`heap per idle connection ${(result.heapPerConnection / 1024).toFixed(2)} KB`);
  }
}

async function split(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const fake = fakeServer();
  memoryAfterGc();
  const before = writeHeapSnapshot(`${DIR}/before.heapsnapshot`);
  const connections: BenchConnection[] = [];
  for (let i = 0; i < count; i++) {
    const connection = ours.connect({ baseUrl: "http://bench.invalid", path: `/v1/acp/idle-${i}`, fetch: fake.fetch });
    await connection.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    connections.push(connection);
  }
  while (connections.some((connection) => !connection.streamOpen)) await sleep(10);
  memoryAfterGc();
  const after = writeHeapSnapshot(`${DIR}/after.heapsnapshot`);
  const was = aggregate(before);
  const rows: Array<[string, number, number]> = [];
  for (const [name, entry] of aggregate(after)) {
    const previous = was.get(name) ?? { count: 0, size: 0 };
    const size = (entry.size - previous.size) / count;
    if (Math.abs(size) >= 20) rows.push([name, (entry.count - previous.count) / count, size]);
  }
  rows.sort((a, b) => b[2] - a[2]);
  for (const [name, objects, size] of rows) console.log(`${size.toFixed(0).padStart(7)} B ${objects.toFixed(2).padStart(7)}×  ${name.slice(0, 120)}`);
  console.log(`total (rows shown) ${(rows.reduce((sum, row) => sum + row[2], 0) / 1024).toFixed(2)} KB per connection`);
  await Promise.all(connections.map((connection) => connection.close()));
}

// Warm once (code compiled, modules loaded), then measure.
await idleConnections(ours, 50);
if (snapshot) {
  await sleep(3000);
  await split();
} else await rounds();
