/** Default `maxMessageBytes`: 32 MiB, as the official ACP SDK has it. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * The UTF-8 size of `text` when it exceeds `limit`, else undefined. Cheap for the common
 * case: a string is at least its length and at most three times its length in UTF-8
 * bytes, so most strings are decided without encoding them.
 */
export function oversize(text: string, limit: number): number | undefined {
  if (text.length > limit) return text.length;
  if (text.length * 3 <= limit) return undefined;
  const bytes = encoder.encode(text).length;
  return bytes > limit ? bytes : undefined;
}
