import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": import.meta.dirname,
      // server-only throws outside a React Server Component bundle.
      "server-only": path.resolve(import.meta.dirname, "scripts/test-support/server-only-noop.ts"),
    },
  },
  oxc: { jsx: { runtime: "automatic" } },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx"],
    exclude: ["node_modules/**", ".next/**", "e2e/**", "data/**"],
    environment: "node",
    pool: "forks",
    // next-intl's ESM imports `next/server` without an extension, which
    // Node's resolver refuses; inlined, Vite resolves it (proxy.ts tests).
    server: { deps: { inline: ["next-intl"] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
