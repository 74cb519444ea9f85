/**
 * Where the client reports what it does. Nothing is logged unless a logger is given
 * or `DEBUG` names `acp-http` (Node only). Callers of the logger pass ids and
 * statuses, never header values, so a token cannot reach a log line.
 */
export interface AcpLogger {
  debug(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
}

export const silentLogger: AcpLogger = { debug() {}, warn() {} };

/** A console logger enabled by `DEBUG=<namespace>` (comma-separated, `*` wildcards), read once. */
export function debugLogger(namespace: string): AcpLogger {
  const pattern = readDebugEnv();
  if (!pattern || !matches(pattern, namespace)) return silentLogger;
  return consoleLogger(namespace);
}

/** A logger that writes `debug` and `warn` to the console, each line prefixed with `namespace`. */
export function consoleLogger(namespace: string): AcpLogger {
  return {
    debug: (message, details) => console.debug(`[${namespace}] ${message}`, details ?? ""),
    warn: (message, details) => console.warn(`[${namespace}] ${message}`, details ?? ""),
  };
}

function readDebugEnv(): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.DEBUG;
}

function matches(pattern: string, namespace: string): boolean {
  return pattern.split(",").some((part) => {
    const glob = part.trim();
    if (!glob) return false;
    const regex = new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
    return regex.test(namespace);
  });
}
