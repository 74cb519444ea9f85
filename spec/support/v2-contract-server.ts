/** Entry point of the v2 ACP-over-HTTP contract server used by the tests (see ./v2-contract-server/). */
export { startV2ContractServer } from "./v2-contract-server/index.js";
export type { AgentExit, V2ContractServer, V2ContractServerOptions } from "./v2-contract-server/index.js";
