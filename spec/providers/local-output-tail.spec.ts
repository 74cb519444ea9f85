// The local provider's tail of the server's output: kept for error messages and passed to `local({ log })`,
// with the token redacted. A secret must not show in part where a long line is cut.
import { PassThrough } from "node:stream";
import { OutputTail } from "../../lib/providers/local/output-tail.js";

const SECRET = "tok-7c1e-SECRET-94ab2d";
const LIMIT = 2000;

/** Feeds `chunks` through a real stream into a tail; returns what it kept and what its sink received. */
async function tailOf(chunks: string[]): Promise<{ kept: string; logged: string }> {
  let logged = "";
  const tail = new OutputTail({ redact: [SECRET], sink: { write: (line: string) => (logged += line) } });
  const stream = new PassThrough();
  tail.follow(stream);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await tail.ended();
  return { kept: tail.text(), logged };
}

/** No piece of the secret (its first or last 5 characters) anywhere. */
function expectNoPartOfSecret(text: string): void {
  expect(text).not.toContain(SECRET.slice(0, 5));
  expect(text).not.toContain(SECRET.slice(-5));
}

describe("the local provider's output tail", () => {
  it("a secret across the cut of an over-long line is redacted before the line is cut", async () => {
    const { kept, logged } = await tailOf([`${"x".repeat(LIMIT - 5)}${SECRET} and more\n`]);
    expectNoPartOfSecret(kept);
    expectNoPartOfSecret(logged);
    expect(kept).toBe(`${"x".repeat(LIMIT - 5)}[reda…`);
  });

  it("a secret split between two chunks at the cut does not leak in either part", async () => {
    const line = `${"x".repeat(LIMIT - 5)}${SECRET} tail`;
    const { kept, logged } = await tailOf([line.slice(0, LIMIT + 3), `${line.slice(LIMIT + 3)}\nnext\n`]);
    expectNoPartOfSecret(kept);
    expectNoPartOfSecret(logged);
    expect(kept.split("\n")).toEqual([`${"x".repeat(LIMIT - 5)}[reda…`, "next"]);
  });

  it("an over-long line arriving in many chunks is kept once, cut, and the lines after it are whole", async () => {
    const long = "y".repeat(10 * LIMIT);
    const chunks = Array.from({ length: 40 }, (_, i) => long.slice(i * 500, (i + 1) * 500));
    const { kept } = await tailOf(["first\n", ...chunks, `\nlast ${SECRET}\n`]);
    expect(kept.split("\n")).toEqual(["first", `${"y".repeat(LIMIT)}…`, "last [redacted]"]);
  });
});
