import { fromBase64, portableFromBase64, portableToBase64, toBase64 } from "../../../lib/sandbox/server/processes/bytes.js";
import { mulberry32 } from "../../support/prng.js";

describe("base64 for process data", () => {
  it("the browser path and the Buffer path agree, both ways, on every length around the chunk size", () => {
    const random = mulberry32(11);
    for (const length of [0, 1, 2, 3, 4, 255, 0x7fff, 0x8000, 0x8001, 100_003]) {
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      const encoded = Buffer.from(bytes).toString("base64");
      expect(portableToBase64(bytes)).toBe(encoded);
      expect(toBase64(bytes)).toBe(encoded);
      expect(Buffer.from(portableFromBase64(encoded)).equals(Buffer.from(bytes))).toBe(true);
      expect(Buffer.from(fromBase64(encoded)).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it("encodes a view at an offset, not its whole buffer", () => {
    const view = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 3);
    expect(toBase64(view)).toBe(Buffer.from([2, 3]).toString("base64"));
    expect(portableToBase64(view)).toBe(Buffer.from([2, 3]).toString("base64"));
  });

  it("decoded bytes own their buffer: `.buffer` holds exactly them, not Node's shared pool", () => {
    for (const length of [1, 10, 100, 5_000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => i % 251);
      const decoded = fromBase64(Buffer.from(bytes).toString("base64"));
      expect(decoded.byteOffset).toBe(0);
      expect(decoded.buffer.byteLength).toBe(length);
      expect(Buffer.from(decoded.buffer).equals(Buffer.from(bytes))).toBe(true);
    }
  });
});
