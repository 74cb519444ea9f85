// Compiles the ```ts blocks of Markdown files, so that the snippets users copy from the README and
// the guides under docs/ cannot rot. Each document becomes one module (its blocks in document order,
// later ones using what earlier ones declared) compiled against the library sources, with the
// package's specifiers mapped from package.json "exports". All documents go into one program, so the
// library is parsed and checked once, while names still cannot clash across documents.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { entriesOf, sourceOf, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

export interface Block {
  /** The Markdown line of the block's first code line. */
  line: number;
  code: string;
}

export interface Document {
  /** How diagnostics name the document, e.g. "README.md" or "docs/persistence.md". */
  label: string;
  blocks: Block[];
  /** Stand-ins for the reader's application, by the name they declare; left out if a block declares it. */
  prelude?: Record<string, string>;
  /** Import declarations a reader would have written without the snippet showing them. */
  imports?: string[];
  /** The blocks are TSX (React components): compiled as a .tsx module. */
  jsx?: boolean;
}

export function tsBlocks(markdown: string, language: "ts" | "tsx" = "ts"): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  const fence = language === "ts" ? /^```(ts|typescript)\s*$/ : /^```tsx\s*$/;
  for (let i = 0; i < lines.length; i++) {
    if (!fence.test(lines[i] ?? "")) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

interface ImportLine {
  text: string;
  typeOnly: boolean;
  line: number | undefined;
}

/**
 * One import declaration per binding, keyed by module and local name: guides repeat an import in
 * each snippet so that every snippet can be copied on its own, and one module must not import a
 * name twice. A value import of a name wins over a type-only one.
 */
function addImports(into: Map<string, ImportLine>, decl: ts.ImportDeclaration, line: number | undefined): void {
  const file = decl.getSourceFile();
  const from = decl.moduleSpecifier.getText(file) + (decl.attributes ? ` ${decl.attributes.getText(file)}` : "");
  const clause = decl.importClause;
  const add = (name: string, binding: string, typeOnly: boolean) => {
    const key = `${from} ${name}`;
    const known = into.get(key);
    if (known && (typeOnly || !known.typeOnly)) return;
    into.set(key, { text: `import ${typeOnly ? "type " : ""}${binding} from ${from};`, typeOnly, line });
  };
  if (!clause) {
    into.set(from, { text: `import ${from};`, typeOnly: false, line }); // a side-effect import
    return;
  }
  if (clause.name) add(clause.name.text, clause.name.text, clause.isTypeOnly);
  const named = clause.namedBindings;
  if (named && ts.isNamespaceImport(named)) add(named.name.text, `* as ${named.name.text}`, clause.isTypeOnly);
  if (named && ts.isNamedImports(named)) {
    for (const element of named.elements) {
      const local = element.name.text;
      const binding = element.propertyName ? `${element.propertyName.getText(file)} as ${local}` : local;
      add(local, `{ ${binding} }`, clause.isTypeOnly || element.isTypeOnly);
    }
  }
}

/**
 * One module: the imports of every block (and the document's own) first, then the blocks' statements,
 * with a map back to Markdown lines.
 */
function compose(doc: Document): { text: string; markdownLine: (line: number) => number | undefined } {
  const imports = new Map<string, ImportLine>();
  for (const text of doc.imports ?? []) {
    const parsed = ts.createSourceFile("imports.ts", text, ts.ScriptTarget.Latest, true);
    for (const statement of parsed.statements) {
      if (ts.isImportDeclaration(statement)) addImports(imports, statement, undefined);
    }
  }
  const body: string[] = [];
  const origin: Array<number | undefined> = [];
  for (const block of doc.blocks) {
    const parsed = ts.createSourceFile("block.ts", block.code, ts.ScriptTarget.Latest, true);
    let code = block.code;
    for (const statement of parsed.statements) {
      if (!ts.isImportDeclaration(statement)) continue;
      const start = statement.getStart(parsed);
      addImports(imports, statement, block.line + parsed.getLineAndCharacterOfPosition(start).line);
      // Blanked rather than cut out, so that every other line keeps its place in the block.
      code = code.slice(0, start) + code.slice(start, statement.end).replace(/[^\n]/g, " ") + code.slice(statement.end);
    }
    code.split("\n").forEach((line, i) => {
      body.push(line);
      origin.push(block.line + i);
    });
  }
  const code = body.join("\n");
  const declared = (name: string) =>
    new RegExp(`\\b(const|let|var|function|class)\\s+${name.replace("$", "\\$")}\\b`).test(code);
  const prelude = Object.entries(doc.prelude ?? {}).filter(([name]) => !declared(name)).map(([, line]) => line);
  const head = [...imports.values()].map((i) => i.text).concat(prelude, "export {};");
  const headOrigin = [...imports.values()].map((i) => i.line);
  return {
    text: [...head, ...body].join("\n"),
    markdownLine: (line) => (line < head.length ? headOrigin[line] : origin[line - head.length]),
  };
}

/** Every error of each document's module, as `<label>:<line>: <message>` (`(prelude)` for a stand-in's line). */
export function diagnosticsOf(docs: Document[]): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;
  const paths = Object.fromEntries(entriesOf(pkg).map((e) => [e.specifier, [join(repoRoot, sourceOf(e))]]));
  const read = ts.readConfigFile(join(repoRoot, "tsconfig.json"), (file) => ts.sys.readFile(file));
  const options = { ...ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot).options, paths, noEmit: true };
  // Never written, served by the host below. At the repository root, where a guide's snippet that is
  // run from a checkout (`node --import tsx`) takes the sources by relative path.
  const modules = new Map(
    docs.map((doc) => [
      join(repoRoot, `${doc.label.replace(/[/.]/g, "-")}.snippets.${doc.jsx ? "tsx" : "ts"}`),
      { doc, ...compose(doc) },
    ]),
  );
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => modules.has(name) || fileExists.call(host, name);
  host.readFile = (name) => modules.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const module = modules.get(name);
    if (module) return ts.createSourceFile(name, module.text, language, true);
    return getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram({ rootNames: [...modules.keys()], options, host });
  // Only the snippets' own files are checked; the library's types are resolved as they use them.
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const found = global.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  for (const [name, { doc, markdownLine }] of modules) {
    const file = program.getSourceFile(name);
    for (const d of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : undefined;
      const where = line === undefined ? "" : `${doc.label}:${markdownLine(line) ?? "(prelude)"}: `;
      found.push(`${where}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    }
  }
  return found;
}
