// Bundles the page's script for the browser: app.ts plus the SDK and its dependencies (rxjs, ky,
// valibot, eventsource-parser) from node_modules, into dist/app.js next to index.html. The page
// imports the SDK by its package name, as an application would; esbuild resolves the name through
// the `paths` of examples/tsconfig.json (the repository's tsconfig.json), to the sources in lib/, so
// no build of the package comes first.
//
//   node --import tsx examples/browser/build.ts
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

export const browserDir = fileURLToPath(new URL(".", import.meta.url));

export async function buildBrowserExample(): Promise<string> {
  const outfile = fileURLToPath(new URL("./dist/app.js", import.meta.url));
  await build({
    entryPoints: [fileURLToPath(new URL("./app.ts", import.meta.url))],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    sourcemap: true,
    logLevel: "warning",
    tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)),
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`built ${await buildBrowserExample()}`);
}
