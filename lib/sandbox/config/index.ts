export { ServerConfig } from "./server-config.js";
export { AgentCatalog, type AgentQueryOptions } from "./agents.js";
export { waitForHealth, type HealthWaitOptions, type HealthWaitResult } from "./health.js";
export { inspectorUrl, type InspectorUrlOptions } from "./inspector.js";
export type {
  McpServerConfig,
  SkillsConfig,
  SkillSource,
  AgentDetails,
  AgentConfigOption,
  ServerConnection,
  ConfigEntryRef,
} from "./schemas.js";
