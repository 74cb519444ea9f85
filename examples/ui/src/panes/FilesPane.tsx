// The file tree: client.fs.listEntries() level by level (a folder expands on click), and the text
// of a clicked file. Paths are relative to the server's home unless absolute.
import { useEffect, useState, type FormEvent } from "react";
import type { FsEntry, SandboxAgentClient } from "sandbox-agent-rx";
import { errorText } from "../words.js";

const MAX_PREVIEW = 64 * 1024;

type Listing = FsEntry[] | string | undefined;

function useListing(client: SandboxAgentClient, path: string, when = true): Listing {
  const [listing, setListing] = useState<Listing>();
  useEffect(() => {
    if (!when) return;
    let live = true;
    setListing(undefined);
    client.fs.listEntries(path, { timeoutMs: 10_000 }).then(
      (entries) => {
        const isDir = (e: FsEntry): number => Number(e.entryType === "directory");
        if (live) setListing([...entries].sort((a, b) => isDir(b) - isDir(a) || a.name.localeCompare(b.name)));
      },
      (error: unknown) => live && setListing(errorText(error)),
    );
    return () => void (live = false);
  }, [client, path, when]);
  return listing;
}

function Tree({ client, path, selected, onShow, id }: {
  client: SandboxAgentClient;
  path: string;
  selected: string | undefined;
  onShow(entry: FsEntry): void;
  id?: string;
}) {
  const listing = useListing(client, path);
  if (listing === undefined) return <ul className="tree" id={id}><li className="muted">loading…</li></ul>;
  if (typeof listing === "string") return <ul className="tree" id={id}><li className="error">{listing}</li></ul>;
  if (listing.length === 0) return <ul className="tree" id={id}><li className="muted">(empty)</li></ul>;
  return (
    <ul className="tree" id={id}>
      {listing.map((entry) => <Node key={entry.path} client={client} entry={entry} selected={selected} onShow={onShow} />)}
    </ul>
  );
}

function Node({ client, entry, selected, onShow }: {
  client: SandboxAgentClient;
  entry: FsEntry;
  selected: string | undefined;
  onShow(entry: FsEntry): void;
}) {
  const [open, setOpen] = useState(false);
  const isDir = entry.entryType === "directory";
  return (
    <li>
      <button type="button" className={`tree-label ${isDir ? "dir" : "file"}${selected === entry.path ? " selected" : ""}`}
        data-path={entry.path} aria-expanded={isDir ? open : undefined}
        onClick={() => (isDir ? setOpen((v) => !v) : onShow(entry))}>
        {`${isDir ? (open ? "▾" : "▸") : "·"} ${entry.name}`}
      </button>
      {isDir && open ? <Tree client={client} path={entry.path} selected={selected} onShow={onShow} /> : null}
    </li>
  );
}

export function FilesPane({ client }: { client: SandboxAgentClient }) {
  const [folder, setFolder] = useState(".");
  const [typed, setTyped] = useState(".");
  const [file, setFile] = useState<FsEntry>();
  const [preview, setPreview] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFolder(typed.trim() || ".");
  };
  const show = (entry: FsEntry): void => {
    setFile(entry);
    setPreview("loading…");
    client.fs.readFile(entry.path, { timeoutMs: 10_000 }).then((bytes) => {
      const text = new TextDecoder().decode(bytes.subarray(0, MAX_PREVIEW));
      setPreview(bytes.length > MAX_PREVIEW ? `${text}\n… (${bytes.length} bytes)` : text);
    }, (error: unknown) => setPreview(errorText(error)));
  };
  return (
    <div className="panel files-panel">
      <form className="panel-bar" onSubmit={submit}>
        <input value={typed} onChange={(e) => setTyped(e.target.value)} aria-label="Folder" className="path-input" />
        <button type="submit">Open</button>
      </form>
      <div className="files-split">
        <Tree key={folder} client={client} path={folder} selected={file?.path} onShow={show} id="file-tree" />
        <div className="file-name">{file ? file.path : "Click a file to see it."}</div>
        <pre className="file-preview" id="file-preview">{preview}</pre>
      </div>
    </div>
  );
}
