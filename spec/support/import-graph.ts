// The import graph of lib/, read with the TypeScript parser (no type checking, so it is quick):
// every relative import, re-export and dynamic import of every source file, each marked as a
// runtime edge (the module is loaded when the importer runs) or a type-only one (erased).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  from: string;
  to: string;
  /** `import type`, `export type`: erased by the compiler, so no load order depends on it. */
  typeOnly: boolean;
}

const SOURCE = /\.(ts|tsx)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** `./x.js` from `file` to the repository-relative source path (`lib/…/x.ts` or `.tsx`). */
function resolveImport(root: string, file: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const absolute = resolve(dirname(file), specifier).replace(/\.js$/, "");
  for (const candidate of [`${absolute}.ts`, `${absolute}.tsx`, join(absolute, "index.ts")]) {
    const path = relative(root, candidate);
    if (known.has(path)) return path;
  }
  return relative(root, `${absolute}.ts`);
}

export function importGraph(root: string, dir = "lib"): ImportEdge[] {
  const files = sourceFiles(join(root, dir));
  const known = new Set(files.map((file) => relative(root, file)));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const from = relative(root, file);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const add = (specifier: string, typeOnly: boolean) => {
      const to = resolveImport(root, file, specifier, known);
      if (to) edges.push({ from, to, typeOnly });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        // Under verbatimModuleSyntax `import { type A }` still loads the module: only
        // `import type` is erased.
        add(node.moduleSpecifier.text, node.importClause?.isTypeOnly ?? false);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        add(node.moduleSpecifier.text, node.isTypeOnly);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false);
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

/**
 * The strongly connected components with more than one file (or a file importing itself):
 * each is one or more import cycles. Files in a component are sorted, components too.
 */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; targets: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, counter);
      low.set(node, counter);
      counter += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: (next.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || next.get(frame.node)?.has(frame.node)) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
