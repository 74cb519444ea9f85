export { ServerConfig } from "./server-config.js";
export { waitForHealth, type HealthWaitOptions, type HealthWaitResult } from "./health.js";
export { inspectorUrl, type InspectorUrlOptions } from "./inspector.js";
export type { McpServerConfig, SkillsConfig, SkillSource, ConfigEntryRef } from "./schemas.js";
