// The demo's permission answers: lines, however they arrive (one key at a time, several in one
// chunk, piped), y/yes/n/no in any case, and a rejection when the input ends without one.
import { PassThrough } from "node:stream";
import { askPermission, parseAnswer, StreamLines } from "../../examples/demo/permission.js";

describe("the demo's permission answers", () => {
  it("reads y/yes/n/no in any case, Enter alone as no, anything else as no answer", () => {
    expect(["y", "Y", "yes", " YeS "].map(parseAnswer)).toEqual(["allow", "allow", "allow", "allow"]);
    expect(["n", "N", "no", "NO", ""].map(parseAnswer)).toEqual(["reject", "reject", "reject", "reject", "reject"]);
    expect(["ye", "nope", "1"].map(parseAnswer)).toEqual([undefined, undefined, undefined]);
  });

  it("takes an answer and its Enter arriving in one chunk, and keeps the next lines for later questions", async () => {
    const input = new PassThrough();
    const lines = new StreamLines(input);
    input.write("n\r\nmaybe\nYES\n");
    let reprompts = 0;
    expect(await askPermission(lines, () => reprompts++)).toEqual({ decision: "reject", line: "n" });
    expect(await askPermission(lines, () => reprompts++)).toEqual({ decision: "allow", line: "YES" });
    expect(reprompts).toBe(1);
    lines.close();
  });

  it("takes an answer typed a key at a time", async () => {
    const input = new PassThrough();
    const lines = new StreamLines(input);
    const answer = askPermission(lines, () => undefined);
    input.write("y");
    input.write("e");
    input.write("s\n");
    expect(await answer).toEqual({ decision: "allow", line: "yes" });
    lines.close();
  });

  it("rejects when the input ends without an answer, or when the question is withdrawn", async () => {
    const ended = new PassThrough();
    const fromEnded = new StreamLines(ended);
    const pending = askPermission(fromEnded, () => undefined);
    ended.end("maybe\n");
    expect(await pending).toEqual({ decision: "reject", line: null });

    const open = new PassThrough();
    const fromOpen = new StreamLines(open);
    const withdrawn = new AbortController();
    const question = askPermission(fromOpen, () => undefined, withdrawn.signal);
    withdrawn.abort();
    expect(await question).toEqual({ decision: "reject", line: null });
    fromOpen.close();
  });
});
