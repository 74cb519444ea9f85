// Vite config of the UI example. The app imports the SDK by its package names, as an application
// would; the aliases point them at the sources in lib/ so `npm run ui` needs no build of the package
// first. JSX is compiled by Vite's own transformer (automatic runtime, from tsconfig.json): no plugin.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const lib = (path: string): string => fileURLToPath(new URL(`../../lib/${path}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: {
    alias: [
      { find: /^sandbox-agent-rx$/, replacement: lib("sandbox/index.ts") },
      { find: /^sandbox-agent-rx\/react$/, replacement: lib("react/index.ts") },
    ],
  },
  // The page talks to the sandbox-agent server on another origin (CORS); nothing is proxied.
  server: { host: "127.0.0.1", strictPort: true },
  // The main chunk (React, the SDK, marked, DOMPurify, the virtualiser) is about 500 kB minified,
  // 150 kB gzipped; xterm.js loads in a chunk of its own with the first terminal.
  build: {
    target: "es2022", sourcemap: true, emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: 700,
  },
  logLevel: "warn",
});
