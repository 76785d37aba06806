// Wire types of the Messages compaction API (/tool-payload-retention), shared
// by the route handlers and the browser. Request bodies are strict: unknown
// fields are 400.
import { z } from "zod";
import {
  ageSchema,
  backupReceiptSchema,
  countSchema,
  operationSchema,
  policyDraftSchema,
  policySchema,
  preparationChoiceSchema,
  preparationStateSchema,
  skipReceiptSchema,
} from "./policy";

export const putPolicyBodySchema = z.strictObject({
  policy: policyDraftSchema,
  expectedRevision: countSchema,
  preparation: preparationChoiceSchema.optional(),
});

export const analyzeBodySchema = z.strictObject({ age: ageSchema });
/** `outsideWindow`: the administrator confirmed running outside the maintenance window. */
export const runBodySchema = z.strictObject({ expectedRevision: countSchema, outsideWindow: z.boolean().optional() });
export const cancelBodySchema = z.strictObject({ operationId: z.string().min(1).max(128) });

export type PutPolicyBody = z.infer<typeof putPolicyBodySchema>;
export type AnalyzeBody = z.infer<typeof analyzeBodySchema>;
export type RunBody = z.infer<typeof runBodySchema>;
export type CancelBody = z.infer<typeof cancelBodySchema>;

export const acceptedOperationSchema = z.looseObject({ operationId: z.string().min(1) });
export type AcceptedOperation = z.infer<typeof acceptedOperationSchema>;

/** MAINTENANCE_WINDOW as status shows it: wall-clock start/end in its zone, and the instants that matter now. */
export const maintenanceWindowSchema = z.strictObject({
  start: z.string(),
  end: z.string(),
  timeZone: z.string(),
  open: z.boolean(),
  nextStartAt: z.string(),
  endsAt: z.string().nullable(),
});
export type MaintenanceWindowView = z.infer<typeof maintenanceWindowSchema>;

/** The GET body (also the answer of PUT and cancel); server/compaction/status.ts builds it. */
export const compactionStatusBodySchema = z.strictObject({
  capability: z.enum(["supported", "unsupported"]),
  recordState: z.enum(["ok", "missing", "malformed"]),
  policy: policySchema,
  preparation: z.strictObject({
    state: preparationStateSchema,
    choice: preparationChoiceSchema.nullable(),
    receipt: z.union([backupReceiptSchema, skipReceiptSchema]).nullable(),
    errorCode: z.string().nullable(),
    operationId: z.string().nullable(),
  }),
  armed: z.boolean(),
  latestAnalysis: operationSchema.nullable(),
  latestRun: operationSchema.nullable(),
  activeOperation: operationSchema.nullable(),
  nextDueAt: z.string().nullable(),
  lastErrorCode: z.string().nullable(),
  /**
   * The active cleanup waits between slices: a manual analysis or "compact
   * now" takes the slot meanwhile and the pass resumes afterwards.
   */
  betweenSlices: z.boolean().optional(),
  /**
   * The active operation has no worker: the instance that ran it stopped
   * and no instance holds the worker lease yet (PostgreSQL; another takes
   * over within seconds and resumes it).
   */
  waitingForWorker: z.boolean().optional(),
  /** Absent or null: no window (cleanup may run at any time). */
  maintenanceWindow: maintenanceWindowSchema.nullable().optional(),
});
export type CompactionStatusBody = z.infer<typeof compactionStatusBodySchema>;

/** A status with nothing prepared, analysed or run yet (a fresh or unsupported record). */
export function idleStatusBody(options: Pick<CompactionStatusBody, "capability" | "recordState" | "policy">): CompactionStatusBody {
  return {
    ...options,
    preparation: { state: "none", choice: null, receipt: null, errorCode: null, operationId: null },
    armed: false,
    latestAnalysis: null,
    latestRun: null,
    activeOperation: null,
    nextDueAt: null,
    lastErrorCode: null,
  };
}
