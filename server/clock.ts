// The one clock type of the server. Domain code receives a Clock; only the
// composition root (server/runtime.ts) and scripts pick the system clock.
export type Clock = {
  /** Milliseconds since the Unix epoch, UTC. */
  now(): number;
};

export type Timers = {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A clock tests move by hand. */
export function manualClock(startMs: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
