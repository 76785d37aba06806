// The two policy records of scheduled checkpoint maintenance, read strictly
// (lossless JSON, then the zod schema: a record we do not understand is
// malformed and fails closed: nothing is scheduled from it) and edited
// read-modify-write inside one writer transaction, so a save and the
// worker's bookkeeping never lose each other's change.
import "server-only";
import { parse } from "lossless-json";
import {
  cleanupScheduleRecordSchema,
  DEFAULT_EXPIRY_AGE,
  expiryRecordSchema,
  type CleanupScheduleRecord,
  type ExpiryRecord,
} from "@/lib/checkpoints/maintenance-api";
import type { CheckpointScheduleStore, MaintenancePolicyKind } from "./store";

type RecordOf<K extends MaintenancePolicyKind> = K extends "checkpoint_cleanup" ? CleanupScheduleRecord : ExpiryRecord;

export type RecordRead<K extends MaintenancePolicyKind> =
  | { state: "ok" | "missing"; record: RecordOf<K>; storedRevision: number | null }
  | { state: "malformed"; storedRevision: number };

export function defaultCleanupRecord(): CleanupScheduleRecord {
  return {
    version: 1,
    policy: { enabled: false, revision: 0 },
    runtime: { nextDueAt: null, activeOperation: null, latestRun: null, lastErrorCode: null },
  };
}

export function defaultExpiryRecord(): ExpiryRecord {
  return {
    version: 1,
    policy: { enabled: false, age: { ...DEFAULT_EXPIRY_AGE }, revision: 0 },
    runtime: {
      preparation: { state: "none", choice: null, revision: null, operationId: null, receipt: null, errorCode: null },
      approvedRevision: null,
      nextDueAt: null,
      activeOperation: null,
      latestAnalysis: null,
      latestRun: null,
      lastErrorCode: null,
    },
  };
}

function safeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError("number out of range");
  return n;
}

function schemaOf(kind: MaintenancePolicyKind) {
  return kind === "checkpoint_cleanup" ? cleanupScheduleRecordSchema : expiryRecordSchema;
}

function defaultOf<K extends MaintenancePolicyKind>(kind: K): RecordOf<K> {
  return (kind === "checkpoint_cleanup" ? defaultCleanupRecord() : defaultExpiryRecord()) as RecordOf<K>;
}

/** The stored record, the default when there is none, or `malformed`. */
export async function readRecord<K extends MaintenancePolicyKind>(store: CheckpointScheduleStore, kind: K): Promise<RecordRead<K>> {
  const row = await store.readPolicy(kind);
  if (!row) return { state: "missing", record: defaultOf(kind), storedRevision: null };
  try {
    const parsed = schemaOf(kind).safeParse(parse(row.record, null, safeNumber));
    if (!parsed.success || parsed.data.policy.revision !== row.revision) return { state: "malformed", storedRevision: row.revision };
    return { state: "ok", record: parsed.data as RecordOf<K>, storedRevision: row.revision };
  } catch {
    return { state: "malformed", storedRevision: row.revision };
  }
}

export type EditOutcome<K extends MaintenancePolicyKind, R> = { next: RecordOf<K> | null; result: R };

/**
 * Reads, lets `mutate` decide, and writes in one writer transaction.
 * `mutate` returns the next record (null: nothing to write) and a result. A
 * malformed record is handed to `onMalformed` (absent: left alone, and the
 * edit's result is null).
 */
export async function editRecord<K extends MaintenancePolicyKind, R>(
  store: CheckpointScheduleStore,
  kind: K,
  nowMs: number,
  mutate: (record: RecordOf<K>, state: "ok" | "missing") => EditOutcome<K, R>,
  onMalformed?: (storedRevision: number) => EditOutcome<K, R>,
): Promise<R | null> {
  return store.writeTransaction(async () => {
    const read = await readRecord(store, kind);
    let outcome: EditOutcome<K, R>;
    if (read.state === "malformed") {
      if (!onMalformed) return null;
      outcome = onMalformed(read.storedRevision);
    } else {
      outcome = mutate(structuredClone(read.record), read.state);
    }
    if (outcome.next) {
      const next = schemaOf(kind).parse(outcome.next);
      const written = await store.writePolicy(kind, { expectedRevision: read.storedRevision, revision: next.policy.revision, record: JSON.stringify(next), nowMs });
      // Inside the writer transaction nobody else can have moved it.
      if (!written) throw new Error("maintenance policy record changed inside its writer transaction");
    }
    return outcome.result;
  });
}
