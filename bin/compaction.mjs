#!/usr/bin/env node
// The `compaction` bin: runs the TypeScript entry (scripts/compaction.ts)
// through the project's tsx with the server conditions, from any directory.
// It runs from the project root (migrations and the SQLite worker thread are
// found there); a relative file: DATABASE_URL keeps meaning the caller's
// directory, and an unset one is the server's default under the root.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const tsx = require.resolve("tsx/cli");
const args = [tsx, "--conditions=react-server", "--tsconfig", path.join(root, "tsconfig.json"), path.join(root, "scripts/compaction.ts"), ...process.argv.slice(2)];
const env = { ...process.env };
const url = env.DATABASE_URL?.trim();
if (url?.startsWith("file:")) {
  const file = url.slice("file:".length).replace(/^\/\//, "");
  if (file && !path.isAbsolute(file)) env.DATABASE_URL = `file:${path.resolve(process.cwd(), file)}`;
}
const child = spawn(process.execPath, args, { stdio: "inherit", env, cwd: root });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
