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

  it("keeps reattach() opt-in: lib/acp-http/reattach.ts is an entry point of its own that nothing in lib/ imports", () => {
    const into = edges.filter((edge) => edge.to === "lib/acp-http/reattach.ts");
    expect(into.map(describeEdge)).toEqual([]);
    expect(edges.some((edge) => edge.from === "lib/acp-http/reattach.ts")).toBe(true);
  });

  it("keeps the protocol layer free of the sandbox: lib/acp-http imports only itself and lib/internal", () => {
    const outward = edges.filter(
      (edge) => layerOf(edge.from) === "acp-http" && !["acp-http", "internal"].includes(layerOf(edge.to) ?? ""),
    );
    expect(outward.map(describeEdge)).toEqual([]);
  });

  // The sandbox layer owns two contracts, `SessionStore` and `SandboxProvider`; lib/sqlite,
  // lib/postgres and lib/providers implement them, lib/react renders the client. They sit beside
  // the layer and enter it through two declared modules only: `index.ts`, the public entry (what a
  // user's code could import), and `kit.ts`, what an implementer needs beyond it (the contracts'
  // types, the cursor and record checks every store shares, the builders of provider errors). The
  // kit loads no client, so a store or a provider does not load the whole sandbox layer.
  const SANDBOX_ENTRIES: Record<string, readonly string[]> = {
    react: ["lib/sandbox/index.ts"],
    sqlite: ["lib/sandbox/kit.ts"],
    postgres: ["lib/sandbox/kit.ts"],
    providers: ["lib/sandbox/kit.ts"],
  };

  it("knows every folder of lib/ (a new one gets its layer line here)", () => {
    const folders = new Set(edges.flatMap((edge) => [layerOf(edge.from), layerOf(edge.to)]));
    expect([...folders].sort()).toEqual(["acp-http", "internal", "sandbox", ...Object.keys(SANDBOX_ENTRIES)].sort());
  });

  it("is entered from beside lib/sandbox only through its declared entries (index.ts, kit.ts)", () => {
    const deep = edges.filter((edge) => {
      const from = layerOf(edge.from) ?? "";
      return from in SANDBOX_ENTRIES && layerOf(edge.to) === "sandbox" && !SANDBOX_ENTRIES[from]!.includes(edge.to);
    });
    expect(deep.map(describeEdge)).toEqual([]);
  });

  it("keeps lib/sandbox free of what implements its contracts: it imports no store, provider or React file", () => {
    const outward = edges.filter(
      (edge) => layerOf(edge.from) === "sandbox" && (layerOf(edge.to) ?? "") in SANDBOX_ENTRIES,
    );
    expect(outward.map(describeEdge)).toEqual([]);
  });

  it("keeps the kit light: lib/sandbox/kit.ts never loads the client", () => {
    const runtime = edges.filter((edge) => !edge.typeOnly);
    const reached = new Set(["lib/sandbox/kit.ts"]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const edge of runtime) {
        if (reached.has(edge.from) && !reached.has(edge.to)) {
          reached.add(edge.to);
          grew = true;
        }
      }
    }
    expect(reached.has("lib/sandbox/errors.ts")).toBe(true);
    expect([...reached].filter((file) => ["lib/sandbox/client.ts", "lib/sandbox/index.ts", "lib/acp-http/index.ts"].includes(file))).toEqual([]);
  });

  it("keeps the store drivers and the providers apart from each other and from lib/react", () => {
    const across = edges.filter((edge) => {
      const from = layerOf(edge.from) ?? "";
      const to = layerOf(edge.to) ?? "";
      return from in SANDBOX_ENTRIES && to in SANDBOX_ENTRIES && from !== to;
    });
    expect(across.map(describeEdge)).toEqual([]);
  });

  // lib/sandbox in folders by role, top to bottom: a folder imports only the folders after it in
  // this list (and the files at the top level), so an arrow between two folders never runs back
  // up and no two folders are in a cycle. persistence/ is last: the store contract and its
  // drivers know nothing of the client that uses them.
  const SANDBOX_FOLDERS = ["start", "sessions", "connection", "transcript", "events", "server", "persistence"];
  const sandboxFolderOf = (path: string) => /^lib\/sandbox\/([^/]+)\//.exec(path)?.[1];
  const sandboxEdges = edges.filter(
    (edge) => edge.from.startsWith("lib/sandbox/") && edge.to.startsWith("lib/sandbox/"),
  );

  it("knows every folder of lib/sandbox (a new one gets its place in the order here)", () => {
    const folders = new Set(sandboxEdges.flatMap((edge) => [sandboxFolderOf(edge.from), sandboxFolderOf(edge.to)]));
    folders.delete(undefined);
    expect([...folders].sort()).toEqual([...SANDBOX_FOLDERS].sort());
  });

  it("runs arrows between lib/sandbox's folders only down their order (no back-arrow, no cycle of folders)", () => {
    const rank = (path: string) => SANDBOX_FOLDERS.indexOf(sandboxFolderOf(path) ?? "");
    const back = sandboxEdges.filter((edge) => {
      const from = rank(edge.from);
      const to = rank(edge.to);
      return from >= 0 && to >= 0 && from !== to && to < from;
    });
    expect(back.map(describeEdge)).toEqual([]);
  });

  it("keeps persistence/ free of the client: of lib/sandbox it imports only errors.ts and defaults.ts", () => {
    const outward = sandboxEdges.filter(
      (edge) =>
        sandboxFolderOf(edge.from) === "persistence" &&
        sandboxFolderOf(edge.to) !== "persistence" &&
        !["lib/sandbox/errors.ts", "lib/sandbox/defaults.ts"].includes(edge.to),
    );
    expect(outward.map(describeEdge)).toEqual([]);
  });

  it("keeps lib/sandbox's shared top-level files below every folder: they import none", () => {
    const SHARED = ["errors", "error-mapping", "error-hints", "defaults", "call-options", "deadline", "metadata"];
    const upward = sandboxEdges.filter(
      (edge) => SHARED.some((name) => edge.from === `lib/sandbox/${name}.ts`) && sandboxFolderOf(edge.to) !== undefined,
    );
    expect(sandboxEdges.some((edge) => edge.from === "lib/sandbox/deadline.ts")).toBe(true);
    expect(upward.map(describeEdge)).toEqual([]);
  });

  it("keeps lib/internal a leaf: it imports nothing else from lib/", () => {
    const outward = edges.filter((edge) => layerOf(edge.from) === "internal" && layerOf(edge.to) !== "internal");
    expect(outward.map(describeEdge)).toEqual([]);
  });
});

function describeEdge(edge: ImportEdge): string {
  return `${edge.from} imports ${edge.to}${edge.typeOnly ? " (type only)" : ""}`;
}
