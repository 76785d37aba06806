// Run handles (DESIGN.md, "Agent checkpoints"): the checkpointId every run
// answers (success, error or cancelled) is a state checkpoint a client may
// keep and resume from later. Each issue is recorded in checkpoint_runs
// with its time; retention treats a recorded handle as an explicit resume
// target (the spec's protected set, item 1) until CHECKPOINT_HANDLE_TTL_DAYS
// after it was issued (0: never expires). That time to live is the handle's
// validity, the same in both modes: past it, a resume from that id answers
// checkpoint_handle_expired (410), whether or not retention has reclaimed
// the checkpoint yet (a checkpoint on the thread's path is never reclaimed,
// so "resumable while stored" would mean forever in delta mode and depend on
// an admin's Clean up in full mode). Only ids a client sends are checked:
// a replay base the server resolves itself (regenerate) is not a handle use.
import { AppError } from "@/server/errors";
import type { CheckpointStore, HandleRecord } from "./store";

/** Default time to live of a run handle, in days (README, Configuration). */
export const DEFAULT_HANDLE_TTL_DAYS = 30;
const MAX_TTL_DAYS = 36_500;
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * CHECKPOINT_HANDLE_TTL_DAYS: whole days, 0 = never expire. A value that is
 * not a whole number of days in range is refused (the runtime logs it and
 * keeps the default), never read as "expire now".
 */
export function handleTtlDaysFromEnv(env: Record<string, string | undefined>): { days: number; invalid: boolean } {
  const raw = env.CHECKPOINT_HANDLE_TTL_DAYS?.trim();
  if (raw === undefined || raw === "") return { days: DEFAULT_HANDLE_TTL_DAYS, invalid: false };
  if (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > MAX_TTL_DAYS) return { days: DEFAULT_HANDLE_TTL_DAYS, invalid: true };
  return { days: Number(raw), invalid: false };
}

/** What retention needs to tell a live handle from an expired one. */
export type HandlePolicy = { ttlDays: number; nowMs: number };

/** When a handle issued at `issuedAtMs` stops being protected; null: never. */
export function handleExpiresAt(issuedAtMs: number, ttlDays: number): number | null {
  return ttlDays === 0 ? null : issuedAtMs + ttlDays * DAY_MS;
}

/**
 * Without a policy every recorded handle counts as live: a caller that
 * does not know the clock or the time to live must not delete one.
 */
export function isHandleLive(record: Pick<HandleRecord, "issuedAtMs">, policy: HandlePolicy | undefined): boolean {
  if (!policy) return true;
  const expires = handleExpiresAt(record.issuedAtMs, policy.ttlDays);
  return expires === null || policy.nowMs < expires;
}

export type HandleState = HandleRecord & { expiresAtMs: number | null; live: boolean };

/** Every handle of the thread by checkpoint id (the newest issue of each id wins). */
export async function threadHandleStates(store: CheckpointStore, threadId: string, policy: HandlePolicy | undefined): Promise<Map<string, HandleState>> {
  const out = new Map<string, HandleState>();
  for (const record of await store.threadHandles(threadId)) {
    const previous = out.get(record.checkpointId);
    if (previous && previous.issuedAtMs > record.issuedAtMs) continue;
    out.set(record.checkpointId, {
      ...record,
      expiresAtMs: policy ? handleExpiresAt(record.issuedAtMs, policy.ttlDays) : null,
      live: isHandleLive(record, policy),
    });
  }
  return out;
}

/** checkpoint_handle_expired (410) when the id is a run handle past its time to live; null otherwise. */
export async function expiredHandle(options: { store?: CheckpointStore; threadId: string; checkpointId: string; policy: HandlePolicy }): Promise<AppError | null> {
  const { store, threadId, checkpointId, policy } = options;
  const record = await store?.handleRecord(threadId, checkpointId);
  if (!record || isHandleLive(record, policy)) return null;
  const expiredAt = new Date(handleExpiresAt(record.issuedAtMs, policy.ttlDays)!).toISOString();
  return new AppError("checkpoint_handle_expired", `Checkpoint ${checkpointId} of thread ${threadId} is a run handle that expired on ${expiredAt}; resume from the thread's current state`, {
    threadId,
    expiredAt,
  });
}
