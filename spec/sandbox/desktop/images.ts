// Checks on the image bytes the desktop returns: the PNG header's size, and a real decoder's reading.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect(Buffer.from(bytes.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** ImageMagick's reading of an image file: proves the bytes decode, not just that the header is right. */
export function identify(dir: string, name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return execFileSync("identify", ["-format", "%m %w %h", path], { encoding: "utf8" }).trim();
}
