/**
 * A bearer token, or a function that yields the current one (called before every
 * request, so tokens can rotate). An empty or undefined token sends no `authorization`.
 */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** The token to send now; undefined when there is none. */
export async function resolveToken(token: TokenSource | undefined): Promise<string | undefined> {
  const value = typeof token === "function" ? await token() : token;
  return value === "" ? undefined : value;
}
