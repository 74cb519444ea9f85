// The import scanner the consumer test relies on: it must see every real import and nothing else.
import { importsOf, packageName } from "./package-graph.js";

describe("package graph", () => {
  it("reads static, re-export, side-effect and literal dynamic imports, not comments or strings", () => {
    const source = [
      'import a from "./a.js";',
      'export * from "./b.js";',
      'import "side-effect";',
      "const hint = 'e.g. import WebSocket from \"ws\"';",
      '// import commented from "line-comment";',
      '/** import documented from "doc-comment" */',
      'const lazy = await import("dynamic");',
      'export { q } from "@scope/pkg/sub";',
    ].join("\n");
    expect(importsOf(source)).toEqual(["./a.js", "./b.js", "side-effect", "dynamic", "@scope/pkg/sub"]);
  });

  it("names the package of a specifier", () => {
    expect(["ws", "ws/lib/x.js", "@scope/pkg/sub", "node:fs"].map(packageName)).toEqual(["ws", "ws", "@scope/pkg", "node:fs"]);
  });
});
