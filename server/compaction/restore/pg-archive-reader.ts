// Reads a task's rows out of a PostgreSQL backup (a `pg_dump --format=custom`
// archive) without restoring it anywhere and without loading the table:
// `pg_restore --data-only --table=messages --file=-` writes the table's COPY
// data to a pipe, the rows stream through copyRows(), which keeps only the
// rows whose id was asked for, and the caller's batch writes pause the
// stream (the pipe's backpressure pauses pg_restore). pg_restore writing a
// file needs no connection: no credentials reach the child process at all.
import "server-only";
import { spawn } from "node:child_process";
import { AppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { BackupReader, BackupRow } from "./backup-reader";
import { storedText } from "./backup-reader";
import { copyRows } from "./copy-text";

/** At most this much of pg_restore's stderr is kept (its first line is reported). */
const STDERR_LIMIT = 4096;

export function openPgArchiveReader(options: { file: string; log: Logger; tool?: string }): BackupReader {
  const children = new Set<ReturnType<typeof spawn>>();
  return {
    async *rows(ids) {
      const wanted = new Set(ids);
      const child = spawn(options.tool ?? "pg_restore", ["--data-only", "--schema=public", "--table=messages", "--file=-", options.file], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(child);
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < STDERR_LIMIT) stderr += chunk.toString("utf8");
      });
      const exited = new Promise<number | null>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (code) => resolve(code));
      });
      let completed = false;
      try {
        for await (const row of copyRows(child.stdout, { table: "messages", keyColumn: "id", keep: (id) => wanted.has(id) })) {
          const id = row.get("id")!.toString("utf8");
          wanted.delete(id);
          const metadata = row.get("metadata") ?? null;
          const stored = metadata === null ? null : storedText(metadata);
          const out: BackupRow = {
            id,
            type: row.get("type")?.toString("utf8") ?? "",
            metadata: stored?.text ?? null,
            encoding: stored?.encoding ?? "utf8",
            updatedAt: row.get("updated_at")?.toString("utf8") ?? null,
            bytes: metadata?.length ?? 0,
          };
          yield out;
          if (wanted.size === 0) break;
        }
        completed = true;
      } finally {
        if (!completed || wanted.size === 0) child.kill("SIGTERM");
        const code = await exited.catch(() => -1);
        children.delete(child);
        // Killed on purpose (every id found, or the caller stopped): not a failure.
        if (completed && wanted.size > 0 && code !== 0) {
          // The tool's own words go to the log only (they name server paths).
          options.log.warn({ tool: "pg_restore", exitCode: code, detail: stderr.trim().split("\n")[0]?.slice(0, 300) ?? "" }, "reading a backup archive failed");
          throw new AppError("backup_unusable", "The backup archive could not be read");
        }
      }
    },
    async close() {
      for (const child of children) child.kill("SIGTERM");
    },
  };
}
