/** Query values; `undefined` leaves a key out, booleans become `true`/`false`. */
export type QueryValues = Record<string, string | number | boolean | undefined>;

/**
 * Joins a base URL (origin and any path prefix) and a path with exactly one slash
 * between them, then appends the query (to any query the path already has).
 */
export function joinUrl(baseUrl: string, path: string, query?: QueryValues): string {
  const joined = `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return query ? withQuery(joined, query) : joined;
}

/** Appends `query` to `url`; an empty query leaves the URL as it was. */
export function withQuery(url: string, query: QueryValues): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.append(key, String(value));
  const text = search.toString();
  return text ? `${url}${url.includes("?") ? "&" : "?"}${text}` : url;
}
