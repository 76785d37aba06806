// The batch being gathered across pages, sessions and tasks before its one
// writer transaction, and how big the next one may grow. A batch starts at
// the spec's 100 rows and 8 MiB of payload; while its writer work stays well
// under ~100 ms the row limit grows (bytes stay capped at 8 MiB), and it
// shrinks again when a batch takes longer, so a batch is sized by work.
import "server-only";
import type { BatchGroup, PreparedRow } from "./batch";
import type { TaskSnapshot } from "../eligibility/recheck";

const MIB = 1024 * 1024;
export const BATCH_LIMITS = { maxBytes: 8 * MIB, maxRows: 4000, targetMs: 100 } as const;

export type OpenBatch = { groups: BatchGroup[]; rows: number; bytes: number };

export function createOpenBatch(): OpenBatch {
  return { groups: [], rows: 0, bytes: 0 };
}

export function bytesOf(rows: readonly PreparedRow[]): number {
  let bytes = 0;
  for (const row of rows) bytes += row.bytes;
  return bytes;
}

/** True when `rows` can join the batch (an empty batch takes anything: a big row travels alone). */
export function fitsBatch(batch: OpenBatch, rows: readonly PreparedRow[], rowLimit: number): boolean {
  if (batch.rows === 0) return true;
  return batch.rows + rows.length <= rowLimit && batch.bytes + bytesOf(rows) <= BATCH_LIMITS.maxBytes;
}

export function isBatchFull(batch: OpenBatch, rowLimit: number): boolean {
  return batch.rows >= rowLimit || batch.bytes >= BATCH_LIMITS.maxBytes;
}

/** Adds a page of one task's rows (appended to that task's group when it is the last one). */
export function addToBatch(
  batch: OpenBatch,
  page: { taskId: string; snapshot: TaskSnapshot; rows: PreparedRow[]; eligibleMessages: number; eligibleTask: boolean },
): void {
  const last = batch.groups.at(-1);
  if (last && last.taskId === page.taskId) {
    last.rows.push(...page.rows);
    last.eligibleMessages += page.eligibleMessages;
    last.eligibleTask ||= page.eligibleTask;
  } else {
    batch.groups.push({ taskId: page.taskId, snapshot: page.snapshot, rows: [...page.rows], eligibleMessages: page.eligibleMessages, eligibleTask: page.eligibleTask });
  }
  batch.rows += page.rows.length;
  batch.bytes += bytesOf(page.rows);
}

/** The row limit after a committed batch that held the writer `batchMs`. */
export function nextRowLimit(current: number, batchMs: number): number {
  if (batchMs > BATCH_LIMITS.targetMs) return Math.max(1, Math.floor(current / 2));
  if (batchMs < BATCH_LIMITS.targetMs / 2) return Math.min(BATCH_LIMITS.maxRows, Math.ceil(current * 1.5));
  return current;
}

/** What the page planner may take next so the page still fits the batch. */
export function pageRoom(batch: OpenBatch, rowLimit: number, pageRows: number): { maxRows: number; maxBytes: number } {
  return {
    maxRows: Math.max(1, Math.min(pageRows, rowLimit - batch.rows)),
    maxBytes: batch.rows === 0 ? BATCH_LIMITS.maxBytes : Math.max(1, BATCH_LIMITS.maxBytes - batch.bytes),
  };
}
