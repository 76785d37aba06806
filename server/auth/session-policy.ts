import "server-only";
import type { Logger } from "@/server/log";
import type { LiveAt } from "./store";

/** Absolute lifetime of a session, whatever its activity. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Default idle timeout: 30 minutes without a request ends a session. This
 * console can restore and delete backups and change who may sign in, so it
 * follows the common guidance for such consoles (NIST SP 800-63B asks for
 * re-authentication after 30 minutes of inactivity at AAL2; OWASP's session
 * guidance names 15-30 minutes for low-risk applications). The Database
 * page polls nothing while it is idle, so a tab left open does count as
 * idle. SESSION_IDLE_MINUTES changes it.
 */
export const DEFAULT_IDLE_MINUTES = 30;
export const MIN_IDLE_MINUTES = 5;
/** Up to the absolute lifetime, which makes the idle timeout moot. */
export const MAX_IDLE_MINUTES = SESSION_TTL_MS / 60_000;
/**
 * Activity is written at most this often per session, so a busy page costs
 * one small write a minute, not one per request; a session may therefore
 * end up to this much before its nominal idle deadline.
 */
export const TOUCH_INTERVAL_MS = 60_000;

export type SessionPolicy = { absoluteMs: number; idleMs: number };

export const DEFAULT_SESSION_POLICY: SessionPolicy = { absoluteMs: SESSION_TTL_MS, idleMs: DEFAULT_IDLE_MINUTES * 60_000 };

/** No idle timeout: a bound no clock reaches, still a safe integer for both engines. */
const IDLE_OFF_MS = 2 ** 52;

/**
 * SESSION_IDLE_MINUTES: 5..10080, or 0 for no idle timeout (only the
 * absolute one). A malformed value is logged and the default kept.
 */
export function sessionPolicyFromEnv(env: Record<string, string | undefined>, log: Logger): SessionPolicy {
  const raw = env.SESSION_IDLE_MINUTES?.trim();
  if (!raw) return DEFAULT_SESSION_POLICY;
  const minutes = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (minutes === 0) return { absoluteMs: SESSION_TTL_MS, idleMs: IDLE_OFF_MS };
  if (!(minutes >= MIN_IDLE_MINUTES && minutes <= MAX_IDLE_MINUTES)) {
    log.warn(
      { event: "session_idle_invalid", min: MIN_IDLE_MINUTES, max: MAX_IDLE_MINUTES, default: DEFAULT_IDLE_MINUTES },
      "SESSION_IDLE_MINUTES is not a whole number of minutes in range; the default is used",
    );
    return DEFAULT_SESSION_POLICY;
  }
  return { absoluteMs: SESSION_TTL_MS, idleMs: minutes * 60_000 };
}

/** The instant and idle bound every session read compares against. */
export function liveAt(policy: SessionPolicy, nowMs: number): LiveAt {
  return { nowMs, idleSinceMs: nowMs - policy.idleMs };
}

/** Whether a request now should write the session's activity. */
export function touchDue(policy: SessionPolicy, lastSeenAtMs: number, nowMs: number): boolean {
  return nowMs - lastSeenAtMs >= Math.min(TOUCH_INTERVAL_MS, Math.floor(policy.idleMs / 10));
}
