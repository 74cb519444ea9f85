// The delivered-response memory (response-order.ts) is keyed by the JSON-RPC id itself: the wire's
// `8` and `"8"` are different requests, and the memory stays bounded however many responses pass.
import { BoundedSet } from "../../../lib/acp-http/response-order.js";

describe("the delivered-response memory", () => {
  it("keeps a number id and the same digits as a string apart", () => {
    const delivered = new BoundedSet<number | string | null>(8);
    delivered.add(8);
    expect(delivered.has(8)).toBe(true);
    expect(delivered.has("8")).toBe(false);
    delivered.add("8");
    delivered.add("null");
    expect(delivered.has(null)).toBe(false);
    expect(delivered.size).toBe(3);
  });

  it("forgets its oldest ids past its limit, and an id added twice counts once", () => {
    const delivered = new BoundedSet<number>(3);
    for (const id of [1, 2, 2, 3, 4]) delivered.add(id);
    expect(delivered.size).toBe(3);
    expect([1, 2, 3, 4].map((id) => delivered.has(id))).toEqual([false, true, true, true]);
  });
});
