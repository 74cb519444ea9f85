// docs/agents.md's table is the data of agents-table.ts, and every cell it calls measured names a
// test that exists: a row that stops being true fails its test, a changed row fails here.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COLUMNS, ROWS, renderTable } from "./agents-table.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

describe("docs/agents.md: the measured table of agents", () => {
  it("shows exactly the table of agents-table.ts, between its markers", () => {
    const doc = read("docs/agents.md");
    const table = /<!-- agents-table:start -->\n([\s\S]*?)\n<!-- agents-table:end -->/.exec(doc)?.[1];
    expect(table).toBe(renderTable());
  });

  it("covers demo, mock, claude, codex, qwen and goose, each cell of each", () => {
    expect(ROWS.map((r) => r.agent).sort()).toEqual(["claude", "codex", "demo", "goose", "mock", "qwen"]);
    for (const row of ROWS) expect(Object.keys(row.cells).sort()).toEqual([...COLUMNS].sort());
  });

  it("names for every measured cell a test that exists in its file", () => {
    const missing: string[] = [];
    for (const row of ROWS) {
      for (const column of COLUMNS) {
        const proof = row.cells[column].proof;
        if (!proof) continue;
        const source = read(proof.file);
        if (source.includes(`it("${proof.test}"`)) continue;
        missing.push(`${row.agent} / ${column}: ${proof.file} › ${proof.test}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
