/** The `sessionId` a params or result object names, if any (ACP puts it at the top level). */
export function sessionOf(value: unknown): string | undefined {
  const sessionId = (value as { sessionId?: unknown } | null | undefined)?.sessionId;
  return typeof sessionId === "string" ? sessionId : undefined;
}
