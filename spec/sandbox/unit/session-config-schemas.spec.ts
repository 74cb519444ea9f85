// Reading a session's config options: select values (grouped ones flattened) and modes derived
// from a `mode` option, for agents that report modes only that way.
import * as v from "valibot";
import {
  SessionConfigOptionsSchema,
  modesFromOptions,
  optionValues,
  type SessionConfigOption,
} from "../../../lib/sandbox/sessions/session-config.js";

const grouped: SessionConfigOption = {
  id: "model",
  category: "model",
  type: "select",
  currentValue: "b",
  options: [
    { value: "a", name: "A" },
    { name: "Fast ones", options: [{ value: "b", name: "B" }, { value: "c" }, { value: "a" }] },
  ],
};

describe("session config option helpers", () => {
  it("optionValues flattens groups and drops repeats", () => {
    expect(optionValues(grouped)).toEqual(["a", "b", "c"]);
  });

  it("optionValues is empty for an option that is not a select (nothing to check against)", () => {
    expect(optionValues({ id: "verbose", type: "boolean", currentValue: true })).toEqual([]);
  });

  it("modesFromOptions: the mode option's values as modes, its current value (else the first) as current", () => {
    const mode: SessionConfigOption = { ...grouped, id: "approval", category: "mode", currentValue: undefined };
    expect(modesFromOptions([grouped, mode])).toEqual({
      currentModeId: "a",
      // "a" is listed twice (once in the group): one mode, named as first listed.
      availableModes: [{ id: "a", name: "A" }, { id: "b", name: "B" }, { id: "c" }],
    });
    expect(modesFromOptions([grouped])).toBeNull();
  });

  it("the schema keeps unknown fields and refuses an option without an id", () => {
    const parsed = v.parse(SessionConfigOptionsSchema, [{ ...grouped, extra: 1 }]);
    expect(parsed[0]).toMatchObject({ extra: 1 });
    expect(v.safeParse(SessionConfigOptionsSchema, [{ category: "model" }]).success).toBe(false);
  });
});
