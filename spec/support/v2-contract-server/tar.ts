/** A minimal ustar/pax/GNU-longname reader for upload_batch (§4.3, §8). No dependencies. */

export interface TarEntry {
  name: string;
  kind: "file" | "directory" | "other";
  data: Buffer;
}

const BLOCK = 512;

function text(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString("utf8");
}

function octal(block: Buffer, offset: number, length: number): number {
  const value = text(block, offset, length).trim();
  return value === "" ? 0 : parseInt(value, 8);
}

/** pax records: "<len> key=value\n". Only `path` matters here. */
function paxPath(data: Buffer): string | undefined {
  let path: string | undefined;
  for (const line of data.toString("utf8").split("\n")) {
    const match = /^\d+ path=(.*)$/.exec(line);
    if (match?.[1] !== undefined) path = match[1];
  }
  return path;
}

function kindOf(typeflag: string): TarEntry["kind"] {
  if (typeflag === "0" || typeflag === "" || typeflag === "7") return "file";
  if (typeflag === "5") return "directory";
  return "other";
}

export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = octal(header, 124, 12);
    const typeflag = text(header, 156, 1);
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (typeflag === "x" || typeflag === "L") {
      longName = typeflag === "L" ? text(data, 0, data.length) : paxPath(data);
      continue;
    }
    if (typeflag === "g") continue;
    const prefix = text(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    longName = undefined;
    entries.push({ name, kind: kindOf(typeflag), data: Buffer.from(data) });
  }
  return entries;
}
