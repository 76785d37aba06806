import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// Import boundaries between the rooms. The browser bundle must never pull in
// server code (database, secrets), and the server must not depend on client
// state (hooks, polling cadence), so wire types live in lib/<feature>/api.ts.
const noServerImports = {
  regex: "^(@/server|(\\.\\./)+server)(/|$)",
  message: "components/ and lib/ never import server/: take wire types from lib/<feature>/api.ts and read server data in app/ (page, layout or app/[locale]/_mounts).",
};
const noClientImports = {
  regex: "^(@/lib|(\\.\\./)+lib)/[^/]+/client(/|$)",
  message: "server/ never imports lib/*/client: share wire types through lib/<feature>/api.ts.",
};

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [".next/**", "node_modules/**", "drizzle/**", "data/**", "dist/**", "test-results/**", "playwright-report/**", "next-env.d.ts"],
  },
  {
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/consistent-type-definitions": ["error", "type"],
    },
  },
  {
    files: ["components/**", "lib/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [noServerImports] }] },
  },
  {
    files: ["server/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [noClientImports] }] },
  },
  // Store verbs return promises: one left unawaited would run outside its
  // transaction or lose its error, so the server side is linted with types.
  {
    files: ["server/**/*.ts", "app/**/*.ts", "scripts/**/*.ts", "instrumentation.ts", "proxy.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
      "@typescript-eslint/await-thenable": "error",
    },
  },
];

export default config;
