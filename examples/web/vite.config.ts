// Vite config of the web example. The app imports the SDK by its package name, as an application
// would; the alias points that name at the sources in lib/ so `npm run web` needs no build first.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const lib = (path: string): string => fileURLToPath(new URL(`../../lib/${path}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: {
    alias: [
      { find: /^sandbox-agent-rx$/, replacement: lib("sandbox/index.ts") },
      { find: /^sandbox-agent-rx\/acp-http$/, replacement: lib("acp-http/index.ts") },
    ],
  },
  // The page talks to the sandbox-agent server on another origin (CORS); nothing is proxied.
  server: { host: "127.0.0.1", strictPort: true },
  build: { target: "es2022", sourcemap: true, emptyOutDir: true, reportCompressedSize: false },
  logLevel: "warn",
});
