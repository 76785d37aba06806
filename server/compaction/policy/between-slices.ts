// "Between slices" as the record shows it to every instance: the worker
// that runs a multi-slice cleanup pass records when the pass waits for its
// continuation (no slice running), so a manual job accepted on an instance
// without the worker lease, which cannot see that worker's timers, may take
// the slot from it as the worker's own instance would. The next slice's
// start (markActiveRunning) and a step-aside clear the mark.
import "server-only";
import type { CompactionStore } from "../store";
import { editRecord } from "./operations";
import type { CompactionRecord } from "./policy-schema";
import { readCompactionRecord } from "./record";

/**
 * The pass in the slot that its worker recorded as waiting for its
 * continuation: what a manual job accepted on an instance without the worker
 * lease (which cannot see that worker's timers) may take the slot from.
 */
export function recordedBetweenSlices(record: CompactionRecord): string | null {
  const { activeOperation, betweenSlices } = record.runtime;
  return betweenSlices && activeOperation?.kind === "cleanup" && activeOperation.id === betweenSlices ? betweenSlices : null;
}

/** The recorded between-slices pass of the stored record (status on an instance without the worker lease). */
export async function betweenSlicesInRecord(store: CompactionStore): Promise<string | null> {
  const read = await readCompactionRecord(store);
  return read.state === "malformed" ? null : recordedBetweenSlices(read.record);
}

/**
 * Records that the pass in the slot waits for its continuation (no slice
 * running); its next slice start clears it. Advisory, so it never throws:
 * unrecorded, a manual job accepted elsewhere meets the pass (409), as
 * before.
 */
export async function markBetweenSlices(store: CompactionStore, options: { operationId: string; nowMs: number }): Promise<boolean> {
  try {
    return await editRecord(store, options.nowMs, (record) => {
      const active = record.runtime.activeOperation;
      if (active?.kind !== "cleanup" || active.id !== options.operationId) return { next: null, result: false };
      if (record.runtime.betweenSlices === options.operationId) return { next: null, result: true };
      record.runtime.betweenSlices = options.operationId;
      return { next: record, result: true };
    });
  } catch {
    return false;
  }
}
