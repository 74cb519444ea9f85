/** JSON helpers shared by the contract server. Everything off the wire is `unknown` until narrowed. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function stringField(source: unknown, key: string): string | undefined {
  const value = asObject(source)?.[key];
  return typeof value === "string" ? value : undefined;
}

/** §4: "for string params that list two names, the first present one wins". */
export function firstString(source: unknown, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = stringField(source, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function boolField(source: unknown, key: string): boolean | undefined {
  const value = asObject(source)?.[key];
  return typeof value === "boolean" ? value : undefined;
}

export const META_NAMESPACE = "sandboxagent.dev";

/** `params._meta["sandboxagent.dev"]` when it is an object (§5). */
export function sandboxMeta(params: unknown): JsonObject | undefined {
  return asObject(asObject(asObject(params)?._meta)?.[META_NAMESPACE]);
}

/** serde's compact output is what `JSON.stringify` gives, so SSE `data:` stays on one line (§1.5). */
export function compact(value: unknown): string {
  return JSON.stringify(value);
}
