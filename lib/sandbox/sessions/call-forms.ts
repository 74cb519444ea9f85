// The two forms of a session method's arguments. The client's own form is positional
// (`prompt(sessionId, prompt, call)`); a caller who knows the protocol passes its one params object
// instead (`prompt({ sessionId, prompt }, call)`), named as the protocol names its fields. Each
// method reads the object into its positional arguments; this module only tells the forms apart
// and refuses what is neither, before anything is sent.

/**
 * A session method's arguments as one object, with the protocol's field names: the session's id
 * and the method's own fields (`prompt`, `modeId`, `cwd`, ...). `_meta` and fields the method has
 * no argument for are accepted and not sent.
 */
export type SessionParams<Fields extends object = object> = Fields & {
  sessionId: string;
  _meta?: Record<string, unknown> | null;
  [field: string]: unknown;
};

/** Where a fork or a resumed session works: `cwd` (default: the client's) and more directories. */
export interface SessionPlace {
  cwd?: string;
  additionalDirectories?: string[];
}

/**
 * `first` read as a params object (`SessionParams`), or undefined when it is a session id (the
 * positional form). Anything else, or an object without a string `sessionId` or one of `required`,
 * is a `TypeError` naming the argument: a caller's bug, said before anything is sent.
 */
export function paramsForm<P extends SessionParams>(
  method: string,
  first: unknown,
  required: readonly string[] = [],
): P | undefined {
  if (typeof first === "string") return undefined;
  const takes = "a session id (a string) or an object with a string sessionId";
  if (typeof first !== "object" || first === null || Array.isArray(first)) {
    throw new TypeError(`${method}: the first argument must be ${takes} (got ${describe(first)})`);
  }
  const params = first as Record<string, unknown>;
  if (typeof params.sessionId !== "string") {
    throw new TypeError(`${method}: the first argument must be ${takes} (got sessionId ${describe(params.sessionId)})`);
  }
  for (const field of required) {
    if (params[field] === undefined) throw new TypeError(`${method}: the params object has no ${field}`);
  }
  return first as P;
}

/** The session id of a method that takes nothing else: the id itself, or a params object's `sessionId`. */
export function sessionIdOf(method: string, session: string | SessionParams): string {
  return paramsForm(method, session)?.sessionId ?? (session as string);
}

/** The value as a message shows it: a short string quoted, otherwise only its type. */
function describe(value: unknown): string {
  if (typeof value === "string") return value.length > 80 ? `"${value.slice(0, 77)}..."` : JSON.stringify(value);
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") {
    return String(value);
  }
  const type = typeof value;
  return Array.isArray(value) ? "an array" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
