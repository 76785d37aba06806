// What an expired thread answers: 410 thread_expired with when it expired
// and when it was last active, for the thread and every run handle of it
// (resume, regenerate, branch, state, history, runs, checkpoints). Never a
// bare 404: a client holding a handle learns the thread will not resume.
import "server-only";
import { AppError } from "@/server/errors";
import { formatUtc } from "@/lib/time/rfc3339";
import type { ThreadExpiredExtra } from "@/lib/checkpoints/maintenance-api";
import type { CheckpointScheduleStore, TombstoneRow } from "./store";

export function threadExpiredError(tombstone: Pick<TombstoneRow, "threadId" | "expiredAtMs" | "lastActivityMs">): AppError {
  const extra: ThreadExpiredExtra = {
    threadId: tombstone.threadId,
    expiredAt: formatUtc(tombstone.expiredAtMs),
    lastActivityAt: tombstone.lastActivityMs === null ? null : formatUtc(tombstone.lastActivityMs),
  };
  return new AppError("thread_expired", `Thread ${tombstone.threadId} expired on ${extra.expiredAt} (thread expiry) and can no longer be read or resumed`, extra);
}

/** The thread_expired error when the thread has a tombstone, else null. */
export async function expiredThread(store: CheckpointScheduleStore, threadId: string): Promise<AppError | null> {
  const tombstone = await store.readTombstone(threadId);
  return tombstone ? threadExpiredError(tombstone) : null;
}

/** Throws thread_expired (410) for an expired thread. */
export async function assertThreadNotExpired(store: CheckpointScheduleStore, threadId: string): Promise<void> {
  const expired = await expiredThread(store, threadId);
  if (expired) throw expired;
}
