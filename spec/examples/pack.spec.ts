// `npm pack` from a fresh copy of the tree (no dist/ built before) gives a complete package: prepack
// builds it, so every entry point of "exports" is in the tarball with its declarations.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packFreshCopy, treeFiles, type FreshPack } from "./fresh-pack.js";
import { entriesOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

const entries = entriesOf(JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson);

describe("npm pack from a fresh clone", () => {
  const stage = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-pack-"));
  let packed: FreshPack;

  beforeAll(async () => {
    packed = await packFreshCopy(stage);
  }, 180_000);

  afterAll(() => rmSync(stage, { recursive: true, force: true }));

  it("starts from a tree without build output", async () => {
    expect((await treeFiles()).filter((file) => file.startsWith("dist/"))).toEqual([]);
  });

  it("builds on prepack: every entry point and its declarations are in the tarball", () => {
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const entry of entries) {
      expect(packed.files).toContain(entry.file.replace(/^\.\//, ""));
      expect(packed.files).toContain((entry.types ?? "(no types condition)").replace(/^\.\//, ""));
    }
    expect(packed.files.filter((file) => file.startsWith("dist/")).length).toBeGreaterThan(50);
    // The demo agent of the README's first turn is a script the build emits next to its module.
    expect(packed.files).toContain("dist/providers/local/demo-agent.mjs");
  });
});
