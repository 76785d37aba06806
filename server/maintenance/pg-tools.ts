// PostgreSQL's client programs (pg_dump, pg_restore, vacuumdb), run as child
// processes so a dump or a VACUUM never blocks the event loop the way a
// synchronous libpq call would. The connection URL reaches them as
// `--dbname`; libpq's error text names host and user, never the password,
// and only the exit code and the first line of stderr are reported.
import "server-only";
import { execFile } from "node:child_process";

export class PgToolError extends Error {
  constructor(
    readonly tool: string,
    readonly exitCode: number | null,
    detail: string,
  ) {
    super(`${tool} failed (exit ${exitCode ?? "signal"}): ${detail}`);
    this.name = "PgToolError";
  }
}

export type PgToolRun = { stdout: string; stderr: string };

/** Runs one client program; rejects with PgToolError on a non-zero exit. `env` adds PGOPTIONS and the like. */
export function runPgTool(tool: "pg_dump" | "pg_restore" | "vacuumdb" | "psql", args: readonly string[], env: Record<string, string> = {}): Promise<PgToolRun> {
  return new Promise((resolve, reject) => {
    execFile(tool, [...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const code = typeof (error as { code?: unknown }).code === "number" ? ((error as { code: number }).code) : null;
        reject(new PgToolError(tool, code, String(stderr).trim().split("\n")[0] ?? ""));
        return;
      }
      resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
