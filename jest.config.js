/** Jest runs the TypeScript sources as native ES modules (ky and eventsource-parser are ESM). */
import { readFileSync } from "node:fs";
import { pathsToModuleNameMapper } from "ts-jest";

// The package's names (`sandbox-agent-rx`, `sandbox-agent-rx/local`, ...) resolve to the sources in
// lib/ as they do for tsc and tsx: from the `paths` of tsconfig.json, so that a spec can load an
// example, which imports the package by name.
const { compilerOptions } = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8"));

export default {
  testEnvironment: "node",
  roots: ["<rootDir>/spec"],
  testMatch: ["**/*.spec.ts"],
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: {
    ...pathsToModuleNameMapper(compilerOptions.paths, { prefix: "<rootDir>/" }),
    "^(\\.{1,2}/.*)\\.js$": "$1",
  },
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }] },
  globalSetup: "<rootDir>/spec/support/global-setup.js",
  globalTeardown: "<rootDir>/spec/support/global-teardown.js",
  testTimeout: 30000,
};
