/**
 * This library's name and version, sent as `clientInfo` when the caller gives none.
 * One constant for both layers; keep `version` in step with package.json on release.
 */
export const CLIENT_INFO = { name: "sandbox-agent-rx", version: "0.1.0" } as const;
