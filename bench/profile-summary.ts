// Summarizes a `.cpuprofile` written by `node --cpu-prof`: self time per function and per source
// file, and total (inclusive) time of the functions whose name matches an optional filter.
// Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [filter]
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, filter] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary <file.cpuprofile> [top] [filter]");
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string): string => url.replace(/^file:\/\/.*?\/(node_modules|lib|bench)\//, "$1/").replace(/^node:/, "node:");
const label = (frame: CallFrame): string => `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;

const selfByFn = new Map<string, number>();
const selfByFile = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  if (!node) continue;
  selfByFn.set(label(node.callFrame), (selfByFn.get(label(node.callFrame)) ?? 0) + us);
  const fileKey = shortUrl(node.callFrame.url) || `(${node.callFrame.functionName})`;
  selfByFile.set(fileKey, (selfByFile.get(fileKey) ?? 0) + us);
  // Inclusive: credit every distinct frame on the stack once.
  const seen = new Set<string>();
  for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
    const frame = byId.get(cursor)?.callFrame;
    if (!frame) break;
    const key = label(frame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

const pct = (us: number): string => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
const print = (title: string, map: Map<string, number>, match?: (key: string) => boolean): void => {
  console.log(`\n${title}`);
  [...map]
    .filter(([key]) => !match || match(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([key, us]) => console.log(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`));
};
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms`);
print("self time by function", selfByFn);
print("self time by file", selfByFile);
print("inclusive time", inclusive, filter ? (key) => key.includes(filter) : undefined);
