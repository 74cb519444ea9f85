import * as v from "valibot";

/** A session's modes and configuration options as the agent reports them (ACP `modes`, `configOptions`). */

export const SessionModeSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
});
export type SessionMode = v.InferOutput<typeof SessionModeSchema>;

export const SessionModesSchema = v.looseObject({
  currentModeId: v.string(),
  availableModes: v.array(SessionModeSchema),
});
/** The session's modes and the one it is in. */
export type SessionModes = v.InferOutput<typeof SessionModesSchema>;

const ValueSchema = v.looseObject({
  value: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
});
/** A select option's value, or a named group of values. */
const GroupSchema = v.looseObject({ name: v.optional(v.string()), options: v.array(ValueSchema) });
const ChoiceSchema = v.union([ValueSchema, GroupSchema]);

export const SessionConfigOptionSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
  category: v.optional(v.nullable(v.string())),
  type: v.optional(v.string()),
  currentValue: v.optional(v.unknown()),
  options: v.optional(v.array(ChoiceSchema)),
});
/**
 * One configuration option of a session (a select of values, with the current one).
 * - `category`: `model`, `mode`, `thought_level`, ... (what `setSessionModel`/`Mode`/`ThoughtLevel` look for).
 */
export type SessionConfigOption = v.InferOutput<typeof SessionConfigOptionSchema>;
export const SessionConfigOptionsSchema = v.array(SessionConfigOptionSchema);

type Choice = v.InferOutput<typeof ValueSchema>;

/** A select option's choices, groups flattened. */
function choices(option: SessionConfigOption): Choice[] {
  return (option.options ?? []).flatMap((entry) => {
    if (v.is(ValueSchema, entry)) return [entry];
    return v.is(GroupSchema, entry) ? entry.options : [];
  });
}

/** The values a select option accepts (groups flattened); empty when it is not a select. */
export function optionValues(option: SessionConfigOption): string[] {
  if (option.type !== undefined && option.type !== "select") return [];
  return [...new Set(choices(option).map((choice) => choice.value))];
}

/** Modes read off a `mode` option, for agents that report modes only as a config option. */
export function modesFromOptions(options: SessionConfigOption[]): SessionModes | null {
  const mode = options.find((option) => option.category === "mode");
  if (!mode) return null;
  // One mode per value: a value listed twice (in two groups) is the first listing.
  const unique = choices(mode).filter((entry, i, all) => all.findIndex((other) => other.value === entry.value) === i);
  const availableModes = unique.map((entry) => ({
    id: entry.value,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
  }));
  if (availableModes.length === 0) return null;
  const current = typeof mode.currentValue === "string" && mode.currentValue ? mode.currentValue : undefined;
  return { currentModeId: current ?? availableModes[0]!.id, availableModes };
}
