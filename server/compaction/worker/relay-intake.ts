// The holder's side of relayed commands: what the shared record says about
// an operation another instance accepted or cancelled.
import { ageSchema, type RetentionAge } from "@/lib/compaction/policy";
import type { SerialQueue } from "@/server/jobs/serial-queue";
import type { readRetentionRecord } from "../policy/record";

/** The draft age an analysis was accepted for (its fingerprint is `unit:value`), or null. */
export function ageOfFingerprint(fingerprint: string | null | undefined): RetentionAge | null {
  const match = /^(weeks|months):(\d+)$/.exec(fingerprint ?? "");
  if (!match) return null;
  const parsed = ageSchema.safeParse({ unit: match[1], value: Number(match[2]) });
  return parsed.success ? parsed.data : null;
}

/** True when this worker's queue already runs or holds the job. */
export function knownLocally(queue: SerialQueue, operationId: string): boolean {
  return queue.running()?.id === operationId || queue.pending().some((job) => job.id === operationId);
}

/**
 * "cancel": the operation still holds the slot past queued (running, or
 * between slices here), so this worker stops it; "forget": the accepting
 * instance already ended it in the record, only local traces remain.
 */
export function relayedCancel(read: ReturnType<typeof readRetentionRecord>, operationId: string): "cancel" | "forget" {
  if (read.state === "malformed") return "forget";
  const active = read.record.runtime.activeOperation;
  return active?.id === operationId && active.state !== "queued" ? "cancel" : "forget";
}
