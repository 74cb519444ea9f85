// The file tree: client.fs.listEntries() level by level (directories expand on click), and the
// content of a clicked file as text. Paths are relative to the server's home unless absolute.
import type { FsEntry, SandboxAgentClient } from "sandbox-agent-rx";
import { errorText, h } from "../dom.js";

const MAX_PREVIEW = 64 * 1024;

export function filesPanel(client: SandboxAgentClient): HTMLElement {
  const tree = h("ul", { class: "tree", id: "file-tree" });
  const preview = h("pre", { class: "file-preview", id: "file-preview" });
  const fileName = h("div", { class: "file-name" }, "Click a file to see it.");
  const root = h("input", { value: ".", "aria-label": "Folder", class: "path-input" });
  const load = (): void => void expand(root.value.trim() || ".", tree);
  const bar = h("form", { class: "panel-bar" }, root, h("button", { type: "submit" }, "Open"));
  bar.addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  requestAnimationFrame(load);

  async function expand(path: string, into: HTMLElement): Promise<void> {
    into.replaceChildren(h("li", { class: "muted" }, "loading…"));
    try {
      const entries = await client.fs.listEntries(path, { timeoutMs: 10_000 });
      const isDir = (e: FsEntry): number => Number(e.entryType === "directory");
      const sorted = [...entries].sort((a, b) => isDir(b) - isDir(a) || a.name.localeCompare(b.name));
      into.replaceChildren(...sorted.map(node));
      if (sorted.length === 0) into.replaceChildren(h("li", { class: "muted" }, "(empty)"));
    } catch (error) {
      into.replaceChildren(h("li", { class: "error" }, errorText(error)));
    }
  }

  function node(entry: FsEntry): HTMLElement {
    const isDir = entry.entryType === "directory";
    const children = h("ul", { class: "tree", hidden: true });
    const kind = isDir ? "dir" : "file";
    const label = h("button", { type: "button", class: `tree-label ${kind}`, "data-path": entry.path },
      `${isDir ? "▸" : "·"} ${entry.name}`);
    label.addEventListener("click", () => {
      if (!isDir) return void show(entry);
      children.hidden = !children.hidden;
      label.textContent = `${children.hidden ? "▸" : "▾"} ${entry.name}`;
      if (!children.hidden) void expand(entry.path, children);
    });
    return h("li", {}, label, isDir ? children : null);
  }

  async function show(entry: FsEntry): Promise<void> {
    for (const label of tree.querySelectorAll<HTMLElement>(".tree-label")) {
      label.classList.toggle("selected", label.dataset.path === entry.path);
    }
    fileName.textContent = entry.path;
    preview.textContent = "loading…";
    try {
      const bytes = await client.fs.readFile(entry.path, { timeoutMs: 10_000 });
      const text = new TextDecoder().decode(bytes.subarray(0, MAX_PREVIEW));
      preview.textContent = bytes.length > MAX_PREVIEW ? `${text}\n… (${bytes.length} bytes)` : text;
    } catch (error) {
      preview.textContent = errorText(error);
    }
  }

  return h("div", { class: "panel files-panel" }, bar, h("div", { class: "files-split" }, tree, fileName, preview));
}
