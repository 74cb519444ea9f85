// The ACP v2 draft's own check of a session update: the zod schema the SDK 2.4 generates from
// `schema/v2/schema.json`. The SDK exports it from no entry, so it is loaded by its file; specs use it
// to show that the updates they feed the sandbox layer are what the draft says, not what we remember.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

interface ZodLike {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown };
}

const require = createRequire(import.meta.url);
// The package's root (its `exports` map opens no deep path, so the entry's file locates it).
const root = join(dirname(require.resolve("@agentclientprotocol/sdk")), "..", "..", "..");
const module = (await import(pathToFileURL(join(root, "dist/v2/schema/zod.gen.js")).href)) as {
  zSessionUpdate: ZodLike;
};

/** Whether `update` is a session update of the v2 draft, by the SDK's own schema; the issues when not. */
export function draftUpdateProblem(update: unknown): string | undefined {
  const result = module.zSessionUpdate.safeParse(update);
  return result.success ? undefined : JSON.stringify(result.error);
}

/** How the SDK's schema reads `update` (tolerated fields left out, invalid items skipped); undefined if malformed. */
export function draftUpdateReading(update: unknown): unknown {
  const result = module.zSessionUpdate.safeParse(update);
  return result.success ? result.data : undefined;
}
