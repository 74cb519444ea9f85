// The public surface, entry by entry (every code subpath of package.json "exports", so an entry
// added later is covered without editing the checks): each exported name has a doc comment (what
// TypeDoc shows), and each entry keeps to its exported-name budget. A budget is the count when it
// was set; lower it when names go, and raise it only with a reason in the commit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { entriesOf, sourceOf, type PackageJson } from "./examples/package-graph.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
const entries = entriesOf(pkg);

/** Exported names per entry, types included (`export *` counted name by name). */
const BUDGET: Record<string, number> = {
  ".": 94,
  "./acp-http": 107,
  "./acp-http/reattach": 4,
  "./local": 8,
  "./docker": 7,
  "./sqlite": 2,
  "./postgres": 6,
  "./react": 15,
};

function compilerOptions(): ts.CompilerOptions {
  const file = join(root, "tsconfig.build.json");
  const config = ts.readConfigFile(file, (path) => ts.sys.readFile(path));
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true };
}

interface Surface {
  names: string[];
  /** Exported names whose declaration has no doc comment (after following re-exports). */
  undocumented: string[];
}

function surfaceOf(program: ts.Program, file: string): Surface {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not in the program`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${file} is not a module`);
  const exported = checker.getExportsOfModule(module);
  const undocumented = exported
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === "";
    })
    .map((symbol) => symbol.name);
  return { names: exported.map((symbol) => symbol.name), undocumented };
}

describe("public surface of each entry point", () => {
  let surfaces: Map<string, Surface>;
  beforeAll(() => {
    const files = entries.map((entry) => join(root, sourceOf(entry)));
    const program = ts.createProgram(files, compilerOptions());
    surfaces = new Map(entries.map((entry) => [entry.subpath, surfaceOf(program, join(root, sourceOf(entry)))]));
  }, 60_000);

  it("has a budget for every entry of package.json exports, and no budget for an entry that is gone", () => {
    expect(entries.map((entry) => entry.subpath).sort()).toEqual(Object.keys(BUDGET).sort());
  });

  it.each(entries.map((entry) => entry.subpath))("%s: every exported name has a doc comment", (subpath) => {
    const surface = surfaces.get(subpath)!;
    expect(surface.names.length).toBeGreaterThan(0);
    expect(surface.undocumented).toEqual([]);
  });

  it.each(entries.map((entry) => entry.subpath))("%s: keeps to its exported-name budget", (subpath) => {
    expect(surfaces.get(subpath)!.names.length).toBeLessThanOrEqual(BUDGET[subpath] ?? 0);
  });

  it("would report a name without a doc comment, through a re-export too (the check itself works)", () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-surface-"));
    try {
      writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
      const entry = join(dir, "entry.ts");
      writeFileSync(entry, 'export { bare, documented } from "./names.js";\n/** Documented here. */\nexport const local = 1;\nexport const plain = 2;\n');
      writeFileSync(join(dir, "names.ts"), "export const bare = 1;\n/** Documented at its declaration. */\nexport const documented = 2;\n");
      const program = ts.createProgram([entry], { ...compilerOptions(), rootDir: dir });
      const surface = surfaceOf(program, entry);
      expect(surface.names.sort()).toEqual(["bare", "documented", "local", "plain"]);
      expect(surface.undocumented.sort()).toEqual(["bare", "plain"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
