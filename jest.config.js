/** Jest runs the TypeScript sources as native ES modules (ky and eventsource-parser are ESM). */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/spec"],
  testMatch: ["**/*.spec.ts"],
  extensionsToTreatAsEsm: [".ts"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, diagnostics: false }] },
  globalSetup: "<rootDir>/spec/support/global-setup.js",
  globalTeardown: "<rootDir>/spec/support/global-teardown.js",
  testTimeout: 30000,
};
