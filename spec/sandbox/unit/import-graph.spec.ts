// The sandbox layer's modules import each other in one direction only: no cycle, type-only imports
// included, across lib/sandbox and lib/providers (the client and the sandbox start are one such pair).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const LAYERS = ["lib/sandbox", "lib/providers"].map((dir) => join(ROOT, dir));

type Graph = Map<string, string[]>;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Each file's relative imports and re-exports (type-only ones too), resolved to the .ts files they name. */
function importGraph(files: string[]): Graph {
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles of a graph, each as the list of its files (strongly connected groups of two or more, or a self-import). */
function cyclesOf(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe("the sandbox layer's import graph", () => {
  it("has no import cycle in lib/sandbox and lib/providers, type-only imports included", () => {
    const graph = importGraph(LAYERS.flatMap(sourcesUnder));
    expect(graph.size).toBeGreaterThan(50);
    const cycles = cyclesOf(graph).map((group) => group.map((file) => relative(ROOT, file)));
    expect(cycles).toEqual([]);
  });

  it("would report a cycle (the check itself works)", () => {
    const graph: Graph = new Map([
      ["client.ts", ["start.ts", "types.ts"]],
      ["start.ts", ["client.ts"]],
      ["types.ts", []],
      ["self.ts", ["self.ts"]],
    ]);
    expect(cyclesOf(graph)).toEqual([["client.ts", "start.ts"], ["self.ts"]]);
  });
});
