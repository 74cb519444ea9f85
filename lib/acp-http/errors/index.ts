export { AcpError } from "./acp-error.js";
export { AcpHttpError, type ProblemDetails } from "./http-error.js";
export { AcpRpcError } from "./rpc-error.js";
export { AcpConnectionClosedError, type CloseReason } from "./connection-closed-error.js";
export { AcpTimeoutError } from "./timeout-error.js";
export { AcpAbortError } from "./abort-error.js";
export { AcpNetworkError } from "./network-error.js";
export { AcpProtocolError } from "./protocol-error.js";
export { AcpInvalidHeaderError } from "./invalid-header-error.js";
