// The versioned settings record of Messages compaction: the policy and the
// singleton runtime state share ONE strict JSON record under one settings
// key, so a policy change and the state it invalidates commit together.
// Only the latest analysis, the latest cleanup run and the active operation
// are kept: the record is bounded by construction, never a history.
import "server-only";
import { z } from "zod";
import {
  countSchema,
  instantSchema,
  operationSchema,
  policySchema,
  preparationSchema,
  type CompactionPolicy,
} from "@/lib/compaction/policy";

export * from "@/lib/compaction/policy";

export const COMPACTION_SETTINGS_KEY = "tool_payload_retention";
export const COMPACTION_RECORD_VERSION = 1;

/**
 * Keyset position of an unfinished cleanup pass. Upper bounds are captured
 * when the pass starts so rows written later are never chased.
 */
export const cursorSchema = z.strictObject({
  operationId: z.string().min(1).max(128),
  cutoff: instantSchema,
  afterTaskId: z.string().nullable(),
  afterSessionId: z.string().nullable(),
  afterMessageRowid: countSchema.nullable(),
  upperTaskId: z.string().nullable(),
  upperMessageRowid: countSchema.nullable(),
});

export const runtimeSchema = z.strictObject({
  preparation: preparationSchema,
  /** The policy revision whose preparation finished; cleanup needs it equal to policy.revision. */
  approvedRevision: countSchema.nullable(),
  nextDueAt: instantSchema.nullable(),
  /** SQLite PRAGMA schema_version captured with the pass. */
  schemaVersion: z.int().nullable(),
  cursor: cursorSchema.nullable(),
  activeOperation: operationSchema.nullable(),
  /**
   * A cleanup pass waiting between slices while a manual operation holds the
   * slot ("manual jobs take priority"); it returns to the slot afterwards.
   */
  waitingCleanup: operationSchema.nullable().optional(),
  /** The keyset position of the waiting pass, kept aside while another pass holds `cursor`. */
  waitingCursor: cursorSchema.nullable().optional(),
  /** The schema version captured with the waiting pass (a change meanwhile still ends it partial). */
  waitingSchemaVersion: z.int().nullable().optional(),
  latestAnalysis: operationSchema.nullable(),
  latestRun: operationSchema.nullable(),
  /**
   * The operation whose cancel was last accepted. Several instances: the
   * instance that accepted it relays it to the worker lease holder, which
   * also finds it here (at batch boundaries and on a timer) when the
   * notification was lost.
   */
  cancelRequested: z.string().min(1).max(128).nullable().optional(),
  /**
   * The cleanup pass in the slot whose worker waits for its continuation (no
   * slice running), as that worker recorded it: a manual job accepted on an
   * instance without the worker lease may take the slot from it.
   */
  betweenSlices: z.string().min(1).max(128).nullable().optional(),
  lastErrorCode: z.string().max(64).nullable(),
});

export const compactionRecordSchema = z.strictObject({
  version: z.literal(COMPACTION_RECORD_VERSION),
  policy: policySchema,
  runtime: runtimeSchema,
});

export type CompactionCursor = z.infer<typeof cursorSchema>;
export type CompactionRuntime = z.infer<typeof runtimeSchema>;
export type CompactionRecord = z.infer<typeof compactionRecordSchema>;

export const DEFAULT_POLICY: CompactionPolicy = Object.freeze({
  enabled: false,
  age: Object.freeze({ value: 3, unit: "months" as const }),
  revision: 0,
}) as CompactionPolicy;

/** A fresh default record (new objects each call: callers may edit it). */
export function createDefaultRecord(): CompactionRecord {
  return {
    version: COMPACTION_RECORD_VERSION,
    policy: { enabled: false, age: { value: 3, unit: "months" }, revision: 0 },
    runtime: {
      preparation: { state: "none", choice: null, revision: null, operationId: null, receipt: null, errorCode: null },
      approvedRevision: null,
      nextDueAt: null,
      schemaVersion: null,
      cursor: null,
      activeOperation: null,
      latestAnalysis: null,
      latestRun: null,
      lastErrorCode: null,
    },
  };
}

/** True when two policies differ in what an administrator chose (not the revision). */
export function policyChoiceChanged(a: CompactionPolicy, b: CompactionPolicy): boolean {
  return a.enabled !== b.enabled || a.age.value !== b.age.value || a.age.unit !== b.age.unit;
}
