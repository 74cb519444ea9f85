// Examples are what users copy: they import the SDK by its package name and its subpaths, as an
// application does, never the sources in lib/ or the test tooling in spec/ by path. (The names
// resolve to lib/ through the `paths` of tsconfig.json, for tsx, tsc and the bundlers.)
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { entriesOf, importsOf, type PackageJson } from "./package-graph.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const examples = join(root, "examples");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;
const CODE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

/** Every source file under examples/ (not installed or built output). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sources(path);
    return CODE.test(entry.name) ? [path] : [];
  });
}

/** Each import of each example file, with the file it is in (relative to the repository). */
function importsOfExamples(): { file: string; specifier: string }[] {
  return sources(examples).flatMap((path) =>
    importsOf(readFileSync(path, "utf8")).map((specifier) => ({ file: relative(root, path), specifier })));
}

/** Where a relative specifier points, relative to the repository; undefined for a package name. */
function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".") && !specifier.startsWith("/")) return undefined;
  return relative(root, resolve(root, dirname(file), specifier));
}

describe("examples import the package by name", () => {
  it("scans the real examples (the SDK names are found)", () => {
    const names = importsOfExamples().map(({ specifier }) => specifier);
    expect(names).toContain(pkg.name);
    expect(names).toContain(`${pkg.name}/local`);
    expect(names).toContain(`${pkg.name}/react`);
  });

  it("imports no file under lib/ or spec/ (nor anything else outside examples/) by path", () => {
    const outside = importsOfExamples()
      .filter(({ file, specifier }) => {
        const to = target(file, specifier);
        return to !== undefined && (to.startsWith("..") || !to.startsWith(`examples${sep}`));
      })
      .map(({ file, specifier }) => `${file}: ${specifier}`);
    expect(outside).toEqual([]);
  });

  it("uses only the package's public entries (the subpaths of its exports map)", () => {
    const entries = new Set(entriesOf(pkg).map((entry) => entry.specifier));
    const unknown = importsOfExamples()
      .filter(({ specifier }) => specifier === pkg.name || specifier.startsWith(`${pkg.name}/`))
      .filter(({ specifier }) => !entries.has(specifier))
      .map(({ file, specifier }) => `${file}: ${specifier}`);
    expect(unknown).toEqual([]);
  });
});
