// npm run compaction -- <command> [--json]   (also the `compaction` bin)
// The operator CLI lives in server/cli/; this file only wires the process:
// argv, the terminal check, signals and the exit code.
import { runCli } from "@/server/cli/main";

// A closed pipe (`| head`) ends output quietly instead of with a stack.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
});

const abort = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => abort.abort());

runCli({ argv: process.argv.slice(2), tty: Boolean(process.stderr.isTTY), signal: abort.signal }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`compaction: unexpected failure (${error instanceof Error ? error.name : "unknown"})\n`);
    process.exitCode = 1;
  },
);
