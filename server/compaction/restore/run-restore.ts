// The restore loop, for a dry run and for the real thing: the backup's rows
// of the task's compacted messages stream in (backup-reader.ts), gather into
// bounded batches (at most 100 rows and 8 MiB of backup bytes; a larger row
// goes alone), and each batch is judged against the rows as stored now
// (proof.ts). A dry run only counts. A restore then writes each restorable
// row in ONE writer transaction per batch: the guarded write (the stored
// text must still be exactly what was proven, so a row edited meanwhile is
// never overwritten and counts as changed_since_compaction), and the
// record's counts, committed with the rows. A process killed at any moment
// leaves every row either compacted or restored, and the counts of what
// committed; running the restore again finishes it (restored rows no longer
// carry a marker: they count as not_compacted).
import "server-only";
import type { RestoreMessageStatus } from "@/lib/task-compaction/api";
import type { BackupReader, BackupRow } from "./backup-reader";
import type { TaskPlan } from "./plan";
import { proveRestore } from "./proof";
import type { RestoreStore } from "./store";

export const RESTORE_BATCH = { rows: 100, bytes: 8 * 1024 * 1024 } as const;

export type RestoreCounts = Record<RestoreMessageStatus, number>;

export type RestoreTally = { counts: RestoreCounts; bytes: number; statuses: Map<string, RestoreMessageStatus>; restoredIds: string[] };

export type BatchCommitted = { messageIds: string[]; tally: RestoreTally; processed: number };

export type RunRestoreOptions = {
  store: RestoreStore;
  reader: BackupReader;
  plan: TaskPlan;
  /** Absent: a dry run (nothing is written). */
  write?: {
    /** Writes the record's counts inside the batch's transaction. */
    progress(tally: RestoreTally): Promise<void>;
    /** After each commit, with the ids it restored. */
    committed(event: BatchCommitted): void;
    /** Checked before each batch: true stops the restore there (what committed stays). */
    shouldStop(): boolean;
  };
  batch?: { rows: number; bytes: number };
};

export type RunRestoreResult = { tally: RestoreTally; stopped: boolean };

function newTally(plan: TaskPlan): RestoreTally {
  return {
    counts: { restorable: 0, not_in_backup: 0, changed_since_compaction: 0, not_compacted: plan.notCompacted },
    bytes: 0,
    statuses: new Map(),
    restoredIds: [],
  };
}

export async function runRestore(options: RunRestoreOptions): Promise<RunRestoreResult> {
  const { store, plan, write } = options;
  const limits = options.batch ?? RESTORE_BATCH;
  const tally = newTally(plan);
  const listed = new Set(plan.listed.filter((row) => row.compacted).map((row) => row.id));
  const note = (id: string, status: RestoreMessageStatus) => {
    tally.counts[status] += 1;
    if (listed.has(id)) tally.statuses.set(id, status);
  };
  let seen = 0;
  let processed = 0;
  let batch: BackupRow[] = [];
  let batchBytes = 0;

  const flush = async (): Promise<boolean> => {
    if (batch.length === 0) return true;
    if (write?.shouldStop()) return false;
    const rows = batch;
    batch = [];
    batchBytes = 0;
    const current = new Map((await store.readRows(rows.map((row) => plan.compacted.get(row.id)!.rowid))).map((row) => [row.id, row]));
    const proven = rows.map((backup) => {
      const now = current.get(backup.id);
      const proof = now ? proveRestore({ current: now, marker: plan.compacted.get(backup.id)!.marker, backup }) : ({ status: "changed_since_compaction" } as const);
      return { id: backup.id, now, proof };
    });
    processed += rows.length;
    if (!write) {
      for (const { id, proof } of proven) {
        note(id, proof.status);
        if (proof.status === "restorable") tally.bytes += proof.bytes;
      }
      return true;
    }
    const before = structuredClone({ counts: tally.counts, bytes: tally.bytes, restored: tally.restoredIds.length });
    const restored: string[] = [];
    try {
      await store.writeTransaction(async () => {
        for (const { id, now, proof } of proven) {
          if (proof.status !== "restorable" || !now || now.metadata === null) {
            note(id, proof.status);
            continue;
          }
          const written = await store.restoreRow({
            rowid: now.rowid,
            observed: now.metadata,
            observedEncoding: now.encoding,
            observedUpdatedAt: now.updatedAt,
            next: proof.next,
            nextEncoding: proof.encoding,
          });
          if (!written) {
            // Edited between the proof and the write: the edit wins.
            note(id, "changed_since_compaction");
            continue;
          }
          note(id, "restorable");
          tally.bytes += proof.bytes;
          restored.push(id);
        }
        tally.restoredIds.push(...restored);
        await write.progress(tally);
      });
    } catch (error) {
      // Rolled back: nothing of this batch counts.
      tally.counts = before.counts;
      tally.bytes = before.bytes;
      tally.restoredIds.length = before.restored;
      throw error;
    }
    write.committed({ messageIds: restored, tally, processed });
    return true;
  };

  for await (const row of options.reader.rows([...plan.compacted.keys()])) {
    if (!plan.compacted.has(row.id)) continue;
    seen += 1;
    if (batch.length > 0 && (batch.length >= limits.rows || batchBytes + row.bytes > limits.bytes)) {
      if (!(await flush())) return { tally: finish(tally, plan, seen, listed), stopped: true };
    }
    batch.push(row);
    batchBytes += row.bytes;
  }
  if (!(await flush())) return { tally: finish(tally, plan, seen, listed), stopped: true };
  return { tally: finish(tally, plan, seen, listed, true), stopped: false };
}

/** Compacted rows the backup never produced are not in it (only once the whole backup was read). */
function finish(tally: RestoreTally, plan: TaskPlan, seen: number, listed: Set<string>, complete = false): RestoreTally {
  if (!complete) return tally;
  tally.counts.not_in_backup += plan.compacted.size - seen;
  for (const id of listed) if (!tally.statuses.has(id)) tally.statuses.set(id, "not_in_backup");
  return tally;
}
