// Log lines an anonymous client can cause (refused sign-ins, malformed
// paths) are rate-limited per event: at most PER_WINDOW lines of one event
// a minute, then one line saying how many were left out. Without it 300
// refused sign-ins pushed the 500-line ring the log viewer reads out within
// seconds, hiding whatever came before. The audit trail keeps the counts.
// No "server-only": proxy.ts reaches this through the process runtime.
import type { Logger } from "pino";
import type { Clock, Timers } from "@/server/clock";

export const FLOOD_LINES_PER_WINDOW = 10;
export const FLOOD_WINDOW_MS = 60_000;

export type FloodLog = {
  /** Logs at warn unless `event` already used up its lines this window. */
  warn(event: string, fields: Record<string, unknown>, message: string): void;
  /** Lines left out so far, per event (tests, the benchmark). */
  suppressed(): Record<string, number>;
  stop(): void;
};

export function createFloodLog(options: { log: () => Logger; clock: Clock; timers: Timers; perWindow?: number; windowMs?: number }): FloodLog {
  const perWindow = options.perWindow ?? FLOOD_LINES_PER_WINDOW;
  const windowMs = options.windowMs ?? FLOOD_WINDOW_MS;
  type State = { windowStart: number; lines: number; left: number };
  const events = new Map<string, State>();
  const totals: Record<string, number> = {};
  let timer: unknown = null;

  // One summary line per event whose window left lines out.
  const summarize = (nowMs: number) => {
    for (const [event, state] of events) {
      if (nowMs - state.windowStart < windowMs) continue;
      if (state.left > 0) options.log().warn({ event: "log_lines_suppressed", kind: event, suppressed: state.left, windowMs }, "similar log lines left out");
      events.delete(event);
    }
  };

  const arm = () => {
    if (timer !== null) return;
    timer = options.timers.setTimeout(() => {
      timer = null;
      summarize(options.clock.now());
      if (events.size > 0) arm();
    }, windowMs);
    (timer as { unref?: () => void } | null)?.unref?.();
  };

  return {
    warn(event, fields, message) {
      const nowMs = options.clock.now();
      summarize(nowMs);
      let state = events.get(event);
      if (!state) {
        state = { windowStart: nowMs, lines: 0, left: 0 };
        events.set(event, state);
        arm();
      }
      if (state.lines < perWindow) {
        state.lines += 1;
        options.log().warn({ ...fields, event }, message);
        return;
      }
      state.left += 1;
      totals[event] = (totals[event] ?? 0) + 1;
    },
    suppressed: () => ({ ...totals }),
    stop() {
      if (timer !== null) options.timers.clearTimeout(timer);
      timer = null;
      summarize(Number.POSITIVE_INFINITY);
    },
  };
}
