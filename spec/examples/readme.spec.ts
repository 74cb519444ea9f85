// The TypeScript snippets of the README and of the guides under docs/ are documentation users copy,
// so they must compile: every ```ts block of a document, in document order, as one module (later
// snippets use what earlier ones declared) against the library sources (see ./snippets.ts).
// Names a snippet uses without declaring (a button, a render function) are declared in PRELUDE.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./run-example.js";
import { diagnosticsOf, tsBlocks, type Document } from "./snippets.js";

/** Stand-ins for what the snippets take from the reader's application. */
const PRELUDE: Record<string, string> = {
  stopButton$: "declare const stopButton$: import('rxjs').Observable<unknown>;",
  render: "declare function render(event: unknown): void;",
  fetchFreshToken: "declare function fetchFreshToken(): Promise<string>;",
  baseUrl: "declare const baseUrl: string;",
  token: "declare const token: string | undefined;",
  xterm: "declare const xterm: { write(data: Uint8Array | string): void };",
};
// rxjs operators the README's snippets use as a reader of the RxJS docs would have imported them.
// The guides' snippets import theirs.
const RXJS_IMPORT = 'import { defer, retry, takeUntil } from "rxjs";';

const read = (label: string): Document => ({
  label,
  blocks: tsBlocks(readFileSync(join(repoRoot, label), "utf8")),
  prelude: PRELUDE,
  imports: label === "README.md" ? [RXJS_IMPORT] : [],
});
const readme = read("README.md");
const guides = readdirSync(join(repoRoot, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => read(`docs/${name}`));

// React components in the guides (```tsx blocks), compiled as .tsx modules.
const components = guides
  .map(({ label }) => ({ label, blocks: tsBlocks(readFileSync(join(repoRoot, label), "utf8"), "tsx"), jsx: true }))
  .filter((doc) => doc.blocks.length > 0);

// One compile for every check: each document plus one deliberately broken block in the README and in
// a guide, so that the test also shows a failure would be reported at the right line of the right file.
const BROKEN_LINE = 99_999;
const BROKEN = { line: BROKEN_LINE, code: "const broken: number = client.notAMethod();" };
const BROKEN_GUIDE = "docs/persistence.md";
const isBroken = (d: string) => ["README.md", BROKEN_GUIDE].some((label) => d.startsWith(`${label}:${BROKEN_LINE}:`));
let found: string[] = [];
beforeAll(() => {
  const withBroken = (doc: Document) =>
    doc.label === "README.md" || doc.label === BROKEN_GUIDE ? { ...doc, blocks: [...doc.blocks, BROKEN] } : doc;
  found = diagnosticsOf([...[readme, ...guides].map(withBroken), ...components]);
}, 120_000);

describe("README snippets", () => {
  it("finds the TypeScript snippets", () => {
    expect(readme.blocks.length).toBeGreaterThanOrEqual(4);
  });

  it("type-check against the library, in document order", () => {
    expect(found.filter((d) => d.startsWith("README.md:") && !isBroken(d))).toEqual([]);
  });

  it("report a broken snippet at its README line", () => {
    const reported = new RegExp(`^README\\.md:${BROKEN_LINE}: Property 'notAMethod' does not exist`);
    expect(found).toContainEqual(expect.stringMatching(reported));
  });
});

describe("docs/ snippets", () => {
  it("finds the guides and their TypeScript snippets", () => {
    expect(guides.map((doc) => doc.label)).toContain(BROKEN_GUIDE);
    expect(guides.reduce((sum, doc) => sum + doc.blocks.length, 0)).toBeGreaterThanOrEqual(10);
  });

  it.each(guides.map((doc) => [doc.label]))("%s type-checks against the library, in document order", (label) => {
    expect(found.filter((d) => d.startsWith(`${label}:`) && !isBroken(d))).toEqual([]);
  });

  it("report a broken snippet at its line in the guide", () => {
    const reported = new RegExp(`^docs/persistence\\.md:${BROKEN_LINE}: Property 'notAMethod' does not exist`);
    expect(found).toContainEqual(expect.stringMatching(reported));
  });

  it("report nothing outside the documents' lines", () => {
    expect(found.filter((d) => !/^(README\.md|docs\/[^:]+\.md):/.test(d))).toEqual([]);
  });
});

describe("docs/ React snippets (tsx)", () => {
  it("finds the React components of the transcript guide", () => {
    expect(components.map((doc) => doc.label)).toContain("docs/transcript.md");
  });

  it.each(components.map((doc) => doc.label))("%s: its components type-check against the library", (label) => {
    // The component blocks' own lines (the guide's ts blocks are checked above).
    const blocks = components.find((doc) => doc.label === label)?.blocks ?? [];
    const lines = new Set(blocks.flatMap((b) => b.code.split("\n").map((_, i) => b.line + i)));
    expect(found.filter((d) => d.startsWith(`${label}:`) && lines.has(Number(d.split(":")[1])))).toEqual([]);
  });
});
