// The holder's side of relayed commands: what the shared record says about
// an operation another instance accepted or cancelled, and the watch that
// finds a cancel whose notification was lost.
import { AsyncResource } from "node:async_hooks";
import { ageSchema, type CompactionAge } from "@/lib/compaction/policy";
import type { Timers } from "@/server/clock";
import type { EventBus } from "@/server/events/bus";
import type { SerialQueue } from "@/server/jobs/serial-queue";
import type { Logger } from "@/server/log";
import type { readCompactionRecord } from "../policy/record";
import type { RelayedCommand } from "./command-relay";

/** The draft age an analysis was accepted for (its fingerprint is `unit:value`), or null. */
export function ageOfFingerprint(fingerprint: string | null | undefined): CompactionAge | null {
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
export function relayedCancel(read: Awaited<ReturnType<typeof readCompactionRecord>>, operationId: string): "cancel" | "forget" {
  if (read.state === "malformed") return "forget";
  const active = read.record.runtime.activeOperation;
  return active?.id === operationId && active.state !== "queued" ? "cancel" : "forget";
}

/** The operation whose cancel the record last accepted, or null. */
export function requestedCancel(read: Awaited<ReturnType<typeof readCompactionRecord>>): string | null {
  return read.state === "malformed" ? null : (read.record.runtime.cancelRequested ?? null);
}

export type CancelWatch = { stop(): void };

/**
 * The lease holder's side of durable cancels. A cancel accepted on another
 * instance is in the record as well as in its notification, which is lost
 * when the holder's listening session drops between two LISTENs. The holder
 * looks at the record after each of its own operation events (batch
 * boundaries, a slice's start, analysis progress) and every `everyMs` (a
 * pass waiting between slices), and hands each requested cancel to its
 * worker once, as if relayed: a duplicate of a delivered notification is
 * harmless (a relayed cancel of an ended operation only drops local traces).
 */
export function watchRequestedCancels(options: {
  readRequested: () => Promise<string | null>;
  bus: EventBus;
  timers: Timers;
  everyMs: number;
  /** True while this instance's worker runs jobs (it holds the lease). */
  holds: () => boolean;
  deliver: (command: RelayedCommand) => void | Promise<void>;
  log: Logger;
}): CancelWatch {
  const { timers, log } = options;
  let delivered: string | null = null;
  let checkQueued = false;
  let stopped = false;
  let handle: unknown = null;

  // Bound to the context the watch starts in: a check queued by an event
  // published inside a transaction must not run its statements in it.
  const check = AsyncResource.bind(async () => {
    if (stopped || !options.holds()) return;
    try {
      const operationId = await options.readRequested();
      if (operationId === null || operationId === delivered || stopped) return;
      delivered = operationId;
      await options.deliver({ kind: "cancel", operationId });
    } catch (error) {
      log.warn({ err: { name: (error as Error)?.name } }, "requested cancel check failed");
    }
  });
  // After the publisher's own code (it may hold the writer transaction).
  const unsubscribe = options.bus.subscribe((event) => {
    if (event.type !== "operation" || checkQueued || stopped) return;
    checkQueued = true;
    queueMicrotask(() => {
      checkQueued = false;
      void check();
    });
  });
  const arm = () => {
    handle = timers.setTimeout(async () => {
      await check();
      if (!stopped) arm();
    }, options.everyMs);
  };
  arm();
  return {
    stop() {
      stopped = true;
      unsubscribe();
      timers.clearTimeout(handle);
    },
  };
}
