// The README's TypeScript snippets are documentation users copy, so they must compile: every ```ts
// block, in document order, as one module (later snippets use what earlier ones declared) against
// the library sources, with the package's specifiers mapped from package.json "exports".
// Names a snippet uses without declaring (a button, a render function) are declared in PRELUDE.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { entriesOf, sourceOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

/** Stand-ins for what the snippets take from the reader's application. */
const PRELUDE: Record<string, string> = {
  stopButton$: "declare const stopButton$: import('rxjs').Observable<unknown>;",
  render: "declare function render(event: unknown): void;",
  fetchFreshToken: "declare function fetchFreshToken(): Promise<string>;",
  baseUrl: "declare const baseUrl: string;",
  token: "declare const token: string | undefined;",
  xterm: "declare const xterm: { write(data: Uint8Array | string): void };",
};
// rxjs operators the snippets use as a reader of the RxJS docs would have imported them.
const RXJS_IMPORT = 'import { defer, retry, takeUntil } from "rxjs";';

interface Block {
  line: number;
  code: string;
}

function tsBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? "")) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** One module: the imports of every block first, then the blocks' statements, with a map back to README lines. */
function compose(blocks: Block[]): { text: string; readmeLine: (line: number) => number | undefined } {
  const imports: string[] = [RXJS_IMPORT];
  const body: string[] = [];
  const origin: Array<number | undefined> = [];
  for (const block of blocks) {
    block.code.split("\n").forEach((line, i) => {
      if (/^import\s/.test(line)) imports.push(line);
      else {
        body.push(line);
        origin.push(block.line + i);
      }
    });
  }
  const code = body.join("\n");
  const declared = (name: string) =>
    new RegExp(`\\b(const|let|var|function|class)\\s+${name.replace("$", "\\$")}\\b`).test(code);
  const prelude = Object.entries(PRELUDE).filter(([name]) => !declared(name)).map(([, line]) => line);
  const head = [...imports, ...prelude, "export {};"];
  return {
    text: [...head, ...body].join("\n"),
    readmeLine: (line) => (line < head.length ? undefined : origin[line - head.length]),
  };
}

function diagnosticsOf(blocks: Block[]): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;
  const paths = Object.fromEntries(entriesOf(pkg).map((e) => [e.specifier, [join(repoRoot, sourceOf(e))]]));
  const read = ts.readConfigFile(join(repoRoot, "tsconfig.json"), (file) => ts.sys.readFile(file));
  const options = { ...ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot).options, paths, noEmit: true };
  const file = join(repoRoot, "spec/examples/readme-snippets.ts"); // never written: served by the host below
  const { text, readmeLine } = compose(blocks);
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? text : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, text, language, true) : getSourceFile.call(host, name, language, ...rest);
  const program = ts.createProgram({ rootNames: [file], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file || d.file === undefined)
    .map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : undefined;
      const where = line === undefined ? "" : `README.md:${readmeLine(line) ?? "(prelude)"}: `;
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
}

describe("README snippets", () => {
  const blocks = tsBlocks(readFileSync(join(repoRoot, "README.md"), "utf8"));
  // One compile for both checks: the README's blocks plus one deliberately broken block, so that
  // the test also shows a failure would be reported at the right README line.
  const BROKEN_LINE = 99_999;
  let found: string[] = [];
  beforeAll(() => {
    found = diagnosticsOf([...blocks, { line: BROKEN_LINE, code: "const broken: number = client.notAMethod();" }]);
  }, 120_000);

  it("finds the TypeScript snippets", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it("type-check against the library, in document order", () => {
    expect(found.filter((d) => !d.startsWith(`README.md:${BROKEN_LINE}:`))).toEqual([]);
  });

  it("report a broken snippet at its README line", () => {
    const reported = new RegExp(`^README\\.md:${BROKEN_LINE}: Property 'notAMethod' does not exist`);
    expect(found).toContainEqual(expect.stringMatching(reported));
  });
});
