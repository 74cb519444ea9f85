// A minimal ustar writer: enough to hand `docker import` a root filesystem (dirs, files, symlinks)
// without a tar dependency or a `tar` binary.

export type TarEntry =
  | { type: "dir"; path: string; mode?: number }
  | { type: "file"; path: string; content: Uint8Array; mode?: number }
  | { type: "symlink"; path: string; target: string };

const BLOCK = 512;

/** The archive as one buffer (entries in order, then the two zero blocks that end it). */
export function tarArchive(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = entry.type === "file" ? Buffer.from(entry.content) : Buffer.alloc(0);
    parts.push(header(entry, body.length));
    if (body.length > 0) {
      parts.push(body);
      const pad = (BLOCK - (body.length % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const path = entry.path.replace(/^\/+/, "") + (entry.type === "dir" && !entry.path.endsWith("/") ? "/" : "");
  const { name, prefix } = splitPath(path);
  const mode = entry.type === "symlink" ? 0o777 : (entry.mode ?? (entry.type === "dir" ? 0o755 : 0o644));
  block.write(name, 0, 100, "utf8");
  octal(block, mode, 100, 8);
  octal(block, 0, 108, 8); // uid
  octal(block, 0, 116, 8); // gid
  octal(block, size, 124, 12);
  octal(block, 0, 136, 12); // mtime: fixed, so the same inputs give the same image
  block.fill(" ", 148, 156); // checksum placeholder
  block.write(entry.type === "dir" ? "5" : entry.type === "symlink" ? "2" : "0", 156, 1, "ascii");
  if (entry.type === "symlink") block.write(entry.target, 157, 100, "utf8");
  block.write("ustar\u0000", 257, 6, "ascii");
  block.write("00", 263, 2, "ascii");
  block.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\u0000 `, 148, 8, "ascii");
  return block;
}

function splitPath(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: "" };
  const cut = path.lastIndexOf("/", path.length - 2);
  const name = path.slice(cut + 1);
  const prefix = path.slice(0, cut);
  if (cut <= 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) {
    throw new Error(`tar: path too long: ${path}`);
  }
  return { name, prefix };
}

function octal(block: Buffer, value: number, offset: number, length: number): void {
  block.write(`${value.toString(8).padStart(length - 1, "0")}\u0000`, offset, length, "ascii");
}
