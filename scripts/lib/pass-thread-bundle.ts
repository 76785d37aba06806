// Bundles the cleanup slice's thread entry into one CommonJS file: the
// domain code is TypeScript with `@/` paths that a worker thread cannot load
// by itself. The SQLite driver stays outside the bundle and is resolved from
// the app root the main thread names (so a bundle in a temp dir works too);
// `server-only` is empty here as in any server bundle.
import fs from "node:fs";
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
    b.onResolve({ filter: /^pg$/ }, (args) => (args.namespace === "shim" ? undefined : { path: "pg", namespace: "shim" }));
    b.onLoad({ filter: /^pg$/, namespace: "shim" }, () => ({
      contents: `module.exports = require("node:module").createRequire(require("node:worker_threads").workerData.root + "/package.json")("pg");`,
      loader: "js",
    }));
    b.onLoad({ filter: /^better-sqlite3$/, namespace: "shim" }, () => ({
      contents: `module.exports = require("node:module").createRequire(require("node:worker_threads").workerData.root + "/package.json")("better-sqlite3");`,
      loader: "js",
    }));
  },
};

/** The sources a bundle was built from, beside it: the runtime ignores a bundle older than any of them. */
export function bundleInputsFile(outFile: string): string {
  return `${outFile}.inputs.json`;
}

export async function buildPassThreadBundle(options: { outFile: string }): Promise<void> {
  await buildThreadBundle({ entry: "server/compaction/thread/pass-thread.ts", outFile: options.outFile });
}

/** The read thread's bundle (server/workspace/read-thread/thread-entry.ts): shell output and export off the server's thread. */
export async function buildReadThreadBundle(options: { outFile: string }): Promise<void> {
  await buildThreadBundle({ entry: "server/workspace/read-thread/thread-entry.ts", outFile: options.outFile });
}

async function buildThreadBundle(options: { entry: string; outFile: string }): Promise<void> {
  const result = await build({
    entryPoints: [path.join(ROOT, options.entry)],
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
    metafile: true,
  });
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes("node_modules/") && !input.includes(":"));
  fs.writeFileSync(bundleInputsFile(options.outFile), JSON.stringify(inputs.map((input) => path.relative(ROOT, path.resolve(input)))));
}
