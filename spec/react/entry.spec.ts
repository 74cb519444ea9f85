// The React bindings stay behind their subpath: the main entry's import graph (sources) never reaches
// react, and the react entry reaches only react, rxjs and the package's own modules.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf, packageName } from "../examples/package-graph.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Packages reached from `entry` through relative imports (`.js` specifiers of `.ts` sources). */
function packagesReached(entry: string): { packages: Set<string>; files: number } {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) {
        packages.add(packageName(specifier));
        continue;
      }
      const target = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
      walk(existsSync(target) ? target : join(target.replace(/\.ts$/, ""), "index.ts"));
    }
  };
  walk(entry);
  return { packages, files: seen.size };
}

describe("the react entry point", () => {
  it("is not reached from the main entry", () => {
    const { packages, files } = packagesReached(join(ROOT, "lib/sandbox/index.ts"));
    expect(files).toBeGreaterThan(50);
    expect(packages.has("rxjs")).toBe(true);
    expect([...packages].filter((p) => p.startsWith("react"))).toEqual([]);
  });

  it("reaches react and nothing else beyond the main entry's own packages", () => {
    const main = packagesReached(join(ROOT, "lib/sandbox/index.ts")).packages;
    const { packages } = packagesReached(join(ROOT, "lib/react/index.ts"));
    expect([...packages].filter((p) => !main.has(p))).toEqual(["react"]);
  });

  it("is a subpath export with types and a default, and react an optional peer", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(pkg.exports["./react"]).toEqual({ types: "./dist/react/index.d.ts", default: "./dist/react/index.js" });
    expect(pkg.peerDependenciesMeta.react?.optional).toBe(true);
    expect(readFileSync(join(ROOT, "lib/react/index.ts"), "utf8")).toContain("@module sandbox-agent-rx/react");
  });
});
