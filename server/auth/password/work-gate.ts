import "server-only";
import { AppError } from "@/server/errors";

/**
 * Bounds concurrent password hashing. Each scrypt holds 32 MiB and a libuv
 * thread (there are four by default, shared with file I/O), so a burst of
 * sign-ins must queue instead of starving every other request; past
 * `maxWaiting` queued attempts the next one is refused at once (429).
 */
export type WorkGate = {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** True when run() would refuse right now (every slot busy, the queue full). */
  isFull(): boolean;
  /** running: now; peak: the most ever running at once; total: work started. */
  stats(): { running: number; waiting: number; peak: number; total: number };
};

export function createWorkGate(options: { concurrency: number; maxWaiting: number }): WorkGate {
  let running = 0;
  let peak = 0;
  let total = 0;
  const waiting: (() => void)[] = [];

  // A finishing run hands its slot straight to the next waiter, so a new
  // caller arriving in between cannot take it as well.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  return {
    async run(work) {
      if (running >= options.concurrency) {
        if (waiting.length >= options.maxWaiting) {
          throw new AppError("too_many_requests", "The server is busy with other sign-ins; try again shortly", { retryAfterSeconds: 1 });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running += 1;
      }
      total += 1;
      peak = Math.max(peak, running);
      try {
        return await work();
      } finally {
        release();
      }
    },
    isFull: () => running >= options.concurrency && waiting.length >= options.maxWaiting,
    stats: () => ({ running, waiting: waiting.length, peak, total }),
  };
}

export const PASSWORD_WORK_CONCURRENCY = 2;
export const PASSWORD_WORK_MAX_WAITING = 32;

export function createPasswordWorkGate(): WorkGate {
  return createWorkGate({ concurrency: PASSWORD_WORK_CONCURRENCY, maxWaiting: PASSWORD_WORK_MAX_WAITING });
}
