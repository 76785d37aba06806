// Events pushed to signed-in members over Server-Sent Events
// (GET /api/v1/system/events; the SSE event name is the `type`). They carry
// identities, states and counts only: never payload bodies or task titles.
import { z } from "zod";

export const operationKindSchema = z.enum(["analysis", "preparation", "cleanup", "checkpoint_analysis", "checkpoint_cleanup"]);
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

export const systemEventSchema = z.discriminatedUnion("type", [operationEventSchema, messagesChangedEventSchema]);
export type SystemEvent = z.infer<typeof systemEventSchema>;

/** SSE event names, one per event type. */
export const SYSTEM_EVENT_TYPES = ["operation", "messages_changed"] as const satisfies readonly SystemEvent["type"][];
