// A small sample project for the demo server's home, so the file tree and the terminal have
// something to show (the demo agent talks about src/index.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FILES: Record<string, string> = {
  "README.md": "# demo project\n\nA tiny project for the sandbox-agent-rx UI example.\n",
  "package.json": `${JSON.stringify({ name: "demo-project", version: "1.0.0", type: "module" }, null, 2)}\n`,
  "src/index.ts":
    'import { greet } from "./greeting.js";\n\nexport function main(): void {\n  console.log(greet("world"));\n}\n',
};

export function seedWorkspace(home: string): void {
  for (const [path, content] of Object.entries(FILES)) {
    const file = join(home, path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, content);
  }
}
