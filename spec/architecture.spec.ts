// The layer lines of lib/, checked on the import graph: no import cycles, and no file reaching
// past another layer's entry point. A failure names the files, so the fix is where it points.
import { fileURLToPath } from "node:url";
import { cycles, importGraph, type ImportEdge } from "./support/import-graph.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const edges = importGraph(root);

const key = (component: readonly string[]) => component.join(" -> ");
const layerOf = (path: string) => /^lib\/([^/]+)\//.exec(path)?.[1];


describe("lib/ import graph", () => {
  it("reads a plausible graph (the check looks at the real sources)", () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some((edge) => edge.from.startsWith("lib/acp-http/"))).toBe(true);
    expect(edges.some((edge) => edge.from.startsWith("lib/sandbox/"))).toBe(true);
  });

  it("has no runtime import cycle (a module loaded while it is still loading sees undefined exports)", () => {
    const runtime = cycles(edges.filter((edge) => !edge.typeOnly));
    expect(runtime.map(key)).toEqual([]);
  });

  it("has no cycle through type-only imports either (types follow the same layering)", () => {
    const runtime = new Set(cycles(edges.filter((edge) => !edge.typeOnly)).map(key));
    const typeOnly = cycles(edges).filter((component) => !runtime.has(key(component)));
    expect(typeOnly.map(key)).toEqual([]);
  });

  it("is entered from outside lib/acp-http only through lib/acp-http/index.ts", () => {
    const deep = edges.filter(
      (edge) =>
        layerOf(edge.from) !== "acp-http" && layerOf(edge.to) === "acp-http" && edge.to !== "lib/acp-http/index.ts",
    );
    expect(deep.map(describeEdge)).toEqual([]);
  });

  it("keeps the protocol layer free of the sandbox: lib/acp-http imports only itself and lib/internal", () => {
    const outward = edges.filter(
      (edge) => layerOf(edge.from) === "acp-http" && !["acp-http", "internal"].includes(layerOf(edge.to) ?? ""),
    );
    expect(outward.map(describeEdge)).toEqual([]);
  });

  it("keeps lib/internal a leaf: it imports nothing else from lib/", () => {
    const outward = edges.filter((edge) => layerOf(edge.from) === "internal" && layerOf(edge.to) !== "internal");
    expect(outward.map(describeEdge)).toEqual([]);
  });
});

function describeEdge(edge: ImportEdge): string {
  return `${edge.from} imports ${edge.to}${edge.typeOnly ? " (type only)" : ""}`;
}
