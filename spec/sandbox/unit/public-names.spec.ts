import { readFileSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as api from "../../../lib/sandbox/index.js";

/**
 * The sandbox layer may use the protocol client internally, but nothing a caller of
 * lib/sandbox can name (exports, the types they mention, transitively) may say "Acp"/"acp".
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const LIB = join(ROOT, "lib");
const INDEX = join(LIB, "sandbox", "index.ts");
const ACP = /acp/i;

describe("public names of lib/sandbox", () => {
  it("has no runtime export whose name contains acp", () => {
    const names = Object.keys(api);
    expect(names).toEqual(expect.arrayContaining(["SandboxAgentClient", "NotConnectedError", "SandboxAgentError", "forSession"]));
    expect(names.filter((name) => ACP.test(name))).toEqual([]);
  });

  it("has no exported name (types included) in index.ts whose name contains acp", () => {
    const names = exportedNamesFromSource(INDEX);
    expect(names).toEqual(expect.arrayContaining(["SandboxAgentClientOptions", "SandboxEvent", "SessionEnded", "ReconnectPolicy", "SandboxAgentHttpError"]));
    expect(names.filter((name) => ACP.test(name))).toEqual([]);
  });

  it("keeps the main entry to at most 100 exported names, types included (each one earns its place)", () => {
    const names = new Set(exportedNamesFromSource(INDEX));
    expect(names.size).toBeGreaterThan(50);
    expect(names.size).toBeLessThanOrEqual(100);
  });

  let emitted: Map<string, string>;
  beforeAll(() => {
    emitted = emitDeclarations();
  }, 60_000);

  it("emits declarations whose public surface never names acp", () => {
    const index = emitted.get(normalize(join(LIB, "sandbox", "index.d.ts")));
    expect(index).toBeDefined();
    // The index itself: its export statements name no acp type (module paths aside, checked below).
    const indexFile = ts.createSourceFile("index.d.ts", index ?? "", ts.ScriptTarget.Latest, true);
    for (const statement of indexFile.statements) {
      if (!ts.isExportDeclaration(statement)) continue;
      const clause = statement.exportClause;
      const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => e.name.text) : [];
      expect(names.filter((name) => ACP.test(name))).toEqual([]);
    }
    const leaks = publicDeclarationLeaks(emitted, normalize(join(LIB, "sandbox", "index.d.ts")), exportedNamesFromSource(INDEX));
    expect(leaks.visited).toBeGreaterThan(30);
    expect(leaks.found).toEqual([]);
  });

  it("would report a declaration that names acp (the walker itself works)", () => {
    // Internal, not exported from the index: its signature does mention the protocol envelope.
    const leaks = publicDeclarationLeaks(emitted, normalize(join(LIB, "sandbox", "events", "events.d.ts")), ["toSandboxEvents"]);
    expect(leaks.found.map((f) => f.name)).toContain("toSandboxEvents");
    expect(leaks.found.find((f) => f.name === "toSandboxEvents")?.text).toMatch(/AcpEnvelope/);
  });
});

function exportedNamesFromSource(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause && ts.isNamedExports(clause)) names.push(...clause.elements.map((e) => e.name.text));
    else if (!clause && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      names.push(...exportedNamesFromSource(resolve(dirname(file), statement.moduleSpecifier.text.replace(/\.js$/, ".ts")), seen));
    }
  }
  return names;
}

function emitDeclarations(): Map<string, string> {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: LIB,
    outDir: LIB,
    noEmit: false,
  };
  const program = ts.createProgram([INDEX], options);
  const out = new Map<string, string>();
  const result = program.emit(undefined, (fileName, text) => out.set(normalize(fileName), text), undefined, true);
  expect(result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  return out;
}

interface Found {
  file: string;
  name: string;
  text: string;
}

/**
 * Walks from the index's exports to every declaration they reference (across the emitted
 * d.ts files), and reports each declaration whose text mentions acp outside comments.
 */
function publicDeclarationLeaks(emitted: Map<string, string>, indexPath: string, names: string[]): { visited: number; found: Found[] } {
  const files = new Map<string, ts.SourceFile>();
  const sourceOf = (path: string): ts.SourceFile | undefined => {
    const text = emitted.get(path);
    if (text === undefined) return undefined;
    let file = files.get(path);
    if (!file) {
      file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
      files.set(path, file);
    }
    return file;
  };
  const target = (from: string, specifier: string): string => normalize(resolve(dirname(from), specifier.replace(/\.js$/, ".d.ts")));
  const visited = new Set<string>();
  const found: Found[] = [];

  const declName = (statement: ts.Statement): string[] => {
    if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText());
    const named = statement as ts.Statement & { name?: ts.Identifier };
    return named.name && ts.isIdentifier(named.name) ? [named.name.text] : [];
  };

  const visitName = (path: string, name: string, depth = 0): void => {
    if (depth > 10) return;
    const file = sourceOf(path);
    if (!file) return;
    const key = `${path}#${name}`;
    if (visited.has(key)) return;
    visited.add(key);
    for (const statement of file.statements) {
      if (declName(statement).includes(name)) inspect(path, name, statement);
      if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        const bindings = statement.importClause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) {
          for (const el of bindings.elements) if (el.name.text === name) visitName(target(path, statement.moduleSpecifier.text), (el.propertyName ?? el.name).text, depth + 1);
        }
      }
      if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
        const clause = statement.exportClause;
        const to = target(path, statement.moduleSpecifier.text);
        if (clause && ts.isNamedExports(clause)) {
          for (const el of clause.elements) if (el.name.text === name) visitName(to, (el.propertyName ?? el.name).text, depth + 1);
        } else if (!clause) visitName(to, name, depth + 1);
      }
    }
  };

  const inspect = (path: string, name: string, statement: ts.Statement): void => {
    const file = statement.getSourceFile();
    // Declaration text without comments; an inline `import("…acp…")` type still counts.
    const printer = ts.createPrinter({ removeComments: true });
    const text = printer.printNode(ts.EmitHint.Unspecified, statement, file);
    if (ACP.test(text)) found.push({ file: path.slice(LIB.length + 1), name, text: text.split("\n").filter((line) => ACP.test(line)).join("\n") });
    const follow = (node: ts.Node): void => {
      if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
        const ref = ts.isTypeReferenceNode(node) ? node.typeName : ts.isTypeQueryNode(node) ? node.exprName : node.expression;
        if (ts.isIdentifier(ref)) visitName(path, ref.text);
        else if (ts.isQualifiedName(ref) && ts.isIdentifier(ref.left)) visitNamespaceMember(path, ref.left.text, ref.right.text);
        else if (ts.isPropertyAccessExpression(ref) && ts.isIdentifier(ref.expression)) visitNamespaceMember(path, ref.expression.text, ref.name.text);
      }
      if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal) && node.qualifier && ts.isIdentifier(node.qualifier)) {
        visitName(target(path, node.argument.literal.text), node.qualifier.text);
      }
      ts.forEachChild(node, follow);
    };
    ts.forEachChild(statement, follow);
  };

  const visitNamespaceMember = (path: string, namespace: string, member: string): void => {
    const file = sourceOf(path);
    if (!file) return;
    for (const statement of file.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings) && bindings.name.text === namespace) visitName(target(path, statement.moduleSpecifier.text), member);
    }
  };

  for (const name of names) visitName(indexPath, name);
  return { visited: visited.size, found };
}
