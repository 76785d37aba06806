import "server-only";
import type { Timers } from "@/server/clock";
import type { Logger } from "@/server/log";

// Why a throttled sign-in waits for its 429: brute-force tools send from a
// fixed number of parallel workers, each asking again the moment an answer
// arrives. Answered at once, 20 such workers keep the server busy with
// nothing but refusals (every request costs the framework's handling, about
// what the cheapest route costs); answered after a pause, they send 20
// requests per pause. The pause is a timer, not work: the event loop serves
// everyone else meanwhile. Bounded: past MAX_HELD answers waiting at once the
// rest are answered without a pause, so a client with thousands of
// connections cannot make us hold thousands of sockets on our side. The
// answer itself never changes (Retry-After is the truth); only when it comes.

export const DEFAULT_REFUSAL_PAUSE_MS = 1000;
export const MAX_REFUSAL_PAUSE_MS = 10_000;
export const MAX_HELD = 256;

export type RefusalPace = {
  /** Resolves after the pause (at most `retryAfterMs`), or at once when MAX_HELD are already waiting. */
  pause(options: { retryAfterMs: number }): Promise<void>;
  held(): number;
  pauseMs: number;
};

/** SIGN_IN_REFUSAL_PAUSE_MS: 0..MAX_REFUSAL_PAUSE_MS, 0 for none; a malformed value is logged and the default kept. */
export function refusalPauseFromEnv(env: Record<string, string | undefined>, log: Logger): number {
  const raw = env.SIGN_IN_REFUSAL_PAUSE_MS?.trim();
  if (!raw) return DEFAULT_REFUSAL_PAUSE_MS;
  const ms = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (ms >= 0 && ms <= MAX_REFUSAL_PAUSE_MS) return ms;
  log.warn({ event: "refusal_pause_invalid", max: MAX_REFUSAL_PAUSE_MS, default: DEFAULT_REFUSAL_PAUSE_MS }, "SIGN_IN_REFUSAL_PAUSE_MS is not a whole number of milliseconds in range; the default is used");
  return DEFAULT_REFUSAL_PAUSE_MS;
}

export function createRefusalPace(options: { timers: Timers; pauseMs: number; maxHeld?: number }): RefusalPace {
  const { timers, pauseMs } = options;
  const maxHeld = options.maxHeld ?? MAX_HELD;
  let held = 0;
  return {
    pauseMs,
    held: () => held,
    async pause({ retryAfterMs }) {
      const ms = Math.min(pauseMs, Math.max(0, retryAfterMs));
      if (ms === 0 || held >= maxHeld) return;
      held += 1;
      try {
        await new Promise<void>((resolve) => timers.setTimeout(resolve, ms));
      } finally {
        held -= 1;
      }
    },
  };
}
