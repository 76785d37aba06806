// npm start, after the migrate step: `next start` on HOST (default 127.0.0.1)
// and PORT (default 3000). Signals reach the server; its exit code is ours.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { displayUrl, nextServerArgv, nextStartArgs } from "./lib/listen";

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");

const child = spawn(process.execPath, nextServerArgv(nextBin, nextStartArgs(process.env)), { stdio: "inherit", env: process.env });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
console.log(`start: serving on ${displayUrl(process.env)}`);
