// A scheduled job's one timer: the next scheduled pass, or the continuation
// of a pass waiting between slices (then `waiting` names it). The compaction
// worker and the checkpoint maintenance schedule each own one.
import "server-only";
import type { Clock, Timers } from "@/server/clock";

export type WaitingPass = { id: string; at: number };

export type SlotTimer = {
  /** Arms the timer (replacing any) for `fire`; no pass waits on it. */
  arm(at: number, fire: () => void): void;
  /** Arms the continuation of `operationId`, which then waits between slices. */
  armContinuation(operationId: string, at: number, fire: () => void): void;
  /** Disarms the timer; the waiting pass stays named unless `forgetWaiting`. */
  disarm(options?: { forgetWaiting?: boolean }): void;
  waiting(): WaitingPass | null;
  nextAt(): number | null;
};

export function createSlotTimer(options: { timers: Timers; clock: Clock; isRunning: () => boolean }): SlotTimer {
  const { timers, clock } = options;
  let timer: { handle: unknown; at: number } | null = null;
  let waiting: WaitingPass | null = null;

  const arm = (at: number, fire: () => void) => {
    if (timer) timers.clearTimeout(timer.handle);
    waiting = null;
    const handle = timers.setTimeout(() => {
      timer = null;
      waiting = null;
      if (options.isRunning()) fire();
    }, Math.max(0, at - clock.now()));
    timer = { handle, at };
  };

  return {
    arm,
    armContinuation(operationId, at, fire) {
      arm(at, fire);
      waiting = { id: operationId, at };
    },
    disarm(disarmOptions) {
      if (timer) timers.clearTimeout(timer.handle);
      timer = null;
      if (disarmOptions?.forgetWaiting) waiting = null;
    },
    waiting: () => waiting,
    nextAt: () => timer?.at ?? null,
  };
}
