// Bundles the cleanup slice's thread entry into one CommonJS file: the
// domain code is TypeScript with `@/` paths that a worker thread cannot load
// by itself. The SQLite driver stays outside the bundle and is resolved from
// the app root the main thread names (so a bundle in a temp dir works too);
// `server-only` is empty here as in any server bundle.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const threadShims: Plugin = {
  name: "pass-thread-shims",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "shim" }));
    b.onResolve({ filter: /^better-sqlite3$/ }, (args) => (args.namespace === "shim" ? undefined : { path: "better-sqlite3", namespace: "shim" }));
    b.onLoad({ filter: /^server-only$/, namespace: "shim" }, () => ({ contents: "", loader: "js" }));
    b.onLoad({ filter: /^better-sqlite3$/, namespace: "shim" }, () => ({
      contents: `module.exports = require("node:module").createRequire(require("node:worker_threads").workerData.root + "/package.json")("better-sqlite3");`,
      loader: "js",
    }));
  },
};

export async function buildPassThreadBundle(options: { outFile: string }): Promise<void> {
  await build({
    entryPoints: [path.join(ROOT, "server/compaction/thread/pass-thread.ts")],
    outfile: options.outFile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    conditions: ["react-server"],
    tsconfig: path.join(ROOT, "tsconfig.json"),
    plugins: [threadShims],
    logLevel: "warning",
    legalComments: "none",
  });
}
