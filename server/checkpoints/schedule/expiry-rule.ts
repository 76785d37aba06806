// Which threads thread expiry may delete. A thread's last activity is the
// newer of its last recorded run and its newest checkpoint (LangGraph writes
// time-ordered UUIDv6 checkpoint ids, so the greatest id carries the time of
// the newest write, whichever process wrote it); a thread is expired only
// when that instant is known and strictly before the pass's cutoff, and no
// run holds its lock in this process. Equal to the cutoff is kept, and so is
// a thread whose time cannot be read: we never delete on a time we could not
// read.
import type { ExpirySkipReason } from "@/lib/checkpoints/maintenance-api";
import type { ThreadActivity } from "./store";

// 100 ns intervals between the Gregorian epoch (1582-10-15) and the Unix epoch.
const GREGORIAN_OFFSET_100NS = 122_192_928_000_000_000n;

/** The instant (Unix ms) a UUIDv6 was minted at; null for any other text. */
export function uuidV6Ms(id: string | null): number | null {
  if (id === null) return null;
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-6([0-9a-f]{3})-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(id);
  if (!match) return null;
  const [, high, mid, low] = match as unknown as [string, string, string, string];
  const ticks = (BigInt(`0x${high}`) << 28n) | (BigInt(`0x${mid}`) << 12n) | BigInt(`0x${low}`);
  const ms = (ticks - GREGORIAN_OFFSET_100NS) / 10_000n;
  return ms < 0n ? null : Number(ms);
}

/** The newest known instant of the thread's activity, or null when neither source can be read. */
export function lastActivityMs(activity: Pick<ThreadActivity, "lastRunAtMs" | "newestCheckpointId">): number | null {
  const times = [activity.lastRunAtMs, uuidV6Ms(activity.newestCheckpointId)].filter((t): t is number => t !== null && Number.isFinite(t));
  return times.length === 0 ? null : Math.max(...times);
}

export type ExpiryVerdict = { expire: true; lastActivityMs: number } | { expire: false; reason: ExpirySkipReason; lastActivityMs: number | null };

export function judgeThread(options: { activity: ThreadActivity; cutoffMs: number; runInFlight: boolean }): ExpiryVerdict {
  const { activity, cutoffMs, runInFlight } = options;
  const last = lastActivityMs(activity);
  if (runInFlight) return { expire: false, reason: "run_in_flight", lastActivityMs: last };
  if (last === null) return { expire: false, reason: "activity_unknown", lastActivityMs: null };
  if (last >= cutoffMs) return { expire: false, reason: "recent_activity", lastActivityMs: last };
  return { expire: true, lastActivityMs: last };
}
