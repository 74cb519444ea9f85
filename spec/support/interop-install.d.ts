// Types of interop-install.js (plain JavaScript, shared with jest's global setup and the CLI).
export interface InstallSpec {
  folder: string;
  label: string;
  scripts: boolean;
}
export declare const INSTALLS: Record<"qwen" | "goose" | "claude" | "codex" | "node22" | "angular", InstallSpec>;
export type InstallName = keyof typeof INSTALLS;
export declare function cacheRoot(): string;
export declare function installDir(name: InstallName): string;
export declare function isInstalled(name: InstallName): boolean;
export declare function pinnedVersion(name: InstallName, pkg: string): string | undefined;
export declare function ensureInstalled(name: InstallName, options?: { timeoutMs?: number }): Promise<string>;
export declare class InteropInstallError extends Error {
  constructor(name: InstallName, dir: string, output: string);
}
