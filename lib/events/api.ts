// Events pushed to signed-in members over Server-Sent Events
// (GET /api/v1/system/events; the SSE event name is the `type`). They carry
// identities, states and counts only: never payload bodies or task titles.
import { z } from "zod";
import { storageTriggerSchema } from "@/lib/database/history-api";

export const operationKindSchema = z.enum([
  "analysis",
  "preparation",
  "cleanup",
  "checkpoint_analysis",
  "checkpoint_cleanup",
  "payload_restore",
  "expiry_analysis",
  "expiry_preparation",
  "thread_expiry",
]);
export const operationStateSchema = z.enum(["queued", "running", "succeeded", "partial", "failed", "cancelled"]);
export type OperationKind = z.infer<typeof operationKindSchema>;
export type OperationState = z.infer<typeof operationStateSchema>;

export const operationEventSchema = z.object({
  type: z.literal("operation"),
  operationId: z.string(),
  kind: operationKindSchema,
  state: operationStateSchema,
  progress: z.object({
    scannedRows: z.number(),
    eligibleMessages: z.number(),
    changedMessages: z.number(),
    payloadBytes: z.number(),
    /** Fraction 0..1 when the total is known, else null. */
    fraction: z.number().nullable(),
    /** Preparation: the backup copy's progress by bytes. */
    backupBytes: z.object({ doneBytes: z.number(), totalBytes: z.number().nullable() }).optional(),
  }),
});
export type OperationEvent = z.infer<typeof operationEventSchema>;

export const messagesChangedEventSchema = z.object({
  type: z.literal("messages_changed"),
  operationId: z.string(),
  messageIds: z.array(z.string()),
});
export type MessagesChangedEvent = z.infer<typeof messagesChangedEventSchema>;

/** A storage-history sample was recorded (the storage card refetches its chart). */
export const storageSampledEventSchema = z.object({
  type: z.literal("storage_sampled"),
  sampleId: z.number(),
  trigger: storageTriggerSchema,
  atMs: z.number(),
});
export type StorageSampledEvent = z.infer<typeof storageSampledEventSchema>;

/**
 * Published once when a checkpoint cleanup (manual or scheduled) or a thread
 * expiry pass ends, whatever its state: the hook for whatever follows a
 * maintenance operation (a storage-history sample). Counts only.
 */
export const maintenanceFinishedEventSchema = z.object({
  type: z.literal("maintenance_finished"),
  operationId: z.string(),
  kind: z.enum(["checkpoint_cleanup", "thread_expiry"]),
  trigger: z.enum(["manual", "scheduled"]),
  state: operationStateSchema,
  /** Threads the operation changed (cleanup) or deleted (thread expiry). */
  threads: z.number().optional(),
  /** Rows and payload bytes the operation removed. */
  removedRows: z.number(),
  removedBytes: z.number(),
});
export type MaintenanceFinishedEvent = z.infer<typeof maintenanceFinishedEventSchema>;

export const systemEventSchema = z.discriminatedUnion("type", [operationEventSchema, messagesChangedEventSchema, maintenanceFinishedEventSchema, storageSampledEventSchema]);
export type SystemEvent = z.infer<typeof systemEventSchema>;

/** SSE event names, one per event type. */
export const SYSTEM_EVENT_TYPES = ["operation", "messages_changed", "maintenance_finished", "storage_sampled"] as const satisfies readonly SystemEvent["type"][];
