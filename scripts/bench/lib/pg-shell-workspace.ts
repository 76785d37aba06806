// The generated workspace of the PostgreSQL compaction benchmarks
// (compaction-postgres.ts, status-during-pass.ts --engine postgres): old
// completed tasks of 50 shell messages each with `stdoutBytes` of stdout, a
// live session for a concurrent writer, and the compaction policy approved
// at NOW_MS.
import { formatUtc } from "@/lib/time/rfc3339";
import { armPolicyOn } from "@/server/compaction/test-support";
import { createPgCompactionStore } from "@/server/compaction/store/pg-store";
import { readPgConfig } from "@/server/db/pg/config";
import { applyPgMigrations } from "@/server/db/pg/migrate";
import { createPgDb } from "@/server/db/pg/pg-db";
import { createPgWorkspaceStore } from "@/server/workspace/pg-store";

const OLD = "2025-01-01T00:00:00Z";
export const NOW_MS = Date.UTC(2026, 0, 1);
export const WRITER_SESSION = "bench-writer-s";

function shellMetadata(callId: string, stdout: string): string {
  return JSON.stringify({
    tool_call_id: callId,
    title: "npm test",
    status: "complete",
    normalized: { kind: "shell_exec", shell_exec: { command: "npm test", work_dir: "/repo", output: { exit_code: 0, stdout, stderr: "", truncated: false } } },
  });
}

/** Old completed tasks of 50 shell messages each, a live writer session, the policy approved at `approveAtMs` (null: left off). */
export async function seedShellWorkspace(url: string, messages: number, stdoutBytes: number, options: { approveAtMs?: number | null } = {}): Promise<void> {
  const pool = createPgDb(readPgConfig(url, { PG_STATEMENT_TIMEOUT_MS: "0", PG_LOCK_TIMEOUT_MS: "0" }));
  await applyPgMigrations(pool);
  const store = createPgWorkspaceStore(pool);
  const stdout = "log line 0123456789 abcdefghij\n".repeat(Math.ceil(stdoutBytes / 31)).slice(0, stdoutBytes);
  const perTask = 50;
  for (let t = 0; t * perTask < messages; t += 1) {
    const id = `t${String(t).padStart(6, "0")}`;
    await store.writeTransaction(async (tx) => {
      await tx.insertTask({ id, title: id, state: "COMPLETED", createdAt: OLD, updatedAt: OLD, queuedForStep: false });
      await tx.insertSession({ id: `${id}-s`, taskId: id, state: "COMPLETED", startedAt: OLD, updatedAt: OLD, completedAt: OLD });
      await tx.insertTurn({ id: `${id}-u`, sessionId: `${id}-s`, startedAt: OLD, completedAt: OLD });
      for (let m = 0; m < perTask && t * perTask + m < messages; m += 1) {
        const callId = `${id}-c${m}`;
        await tx.insertMessage({ id: `${id}-m${m}`, sessionId: `${id}-s`, turnId: `${id}-u`, authorType: "agent", type: "tool_execute", content: "tool", metadata: shellMetadata(callId, stdout), toolCallId: callId, createdAt: OLD, updatedAt: OLD });
      }
    });
  }
  const now = formatUtc(NOW_MS);
  await store.writeTransaction(async (tx) => {
    await tx.insertTask({ id: "bench-writer", title: "writer", state: "IN_PROGRESS", createdAt: now, updatedAt: now, queuedForStep: false });
    await tx.insertSession({ id: WRITER_SESSION, taskId: "bench-writer", state: "RUNNING", startedAt: now, updatedAt: now, completedAt: null });
  });
  if (options.approveAtMs !== null) await armPolicyOn(createPgCompactionStore(pool), { value: 3, unit: "months" }, options.approveAtMs ?? NOW_MS);
  await pool.exec("vacuum analyze");
  await pool.close();
}

