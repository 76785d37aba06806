// Test support: a clock and timers moved together by hand, so code that
// waits (re-checks, heartbeats) runs exactly when the test says, never
// after a real sleep.
import { manualClock, type Clock, type Timers } from "./clock";

export type ManualTime = {
  clock: Clock & { set(ms: number): void; advance(ms: number): void };
  timers: Timers;
  /** Moves the clock forward, running every timer that falls due on the way, in order. */
  advance(ms: number): void;
  /** Delays of the timers now pending, soonest first. */
  pendingDelays(): number[];
};

export function manualTime(startMs: number): ManualTime {
  const clock = manualClock(startMs);
  let nextId = 1;
  const pending = new Map<number, { at: number; delay: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout(fn, ms) {
      const id = nextId++;
      pending.set(id, { at: clock.now() + ms, delay: ms, fn });
      return id;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    clock,
    timers,
    advance(ms) {
      const end = clock.now() + ms;
      for (;;) {
        const due = [...pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!due) break;
        pending.delete(due[0]);
        clock.set(Math.max(clock.now(), due[1].at));
        due[1].fn();
      }
      clock.set(end);
    },
    pendingDelays: () => [...pending.values()].map((t) => t.delay).sort((a, b) => a - b),
  };
}
