// The 200 ms statement deadline of a cleanup batch.
//
// The synchronous SQLite driver exposes neither sqlite3_progress_handler nor
// sqlite3_interrupt, so a running statement cannot be stopped from inside.
// Instead the batch checks elapsed time (injected clock) between its
// statements and throws past the deadline: the synchronous transaction
// callback then rolls the whole batch back. A single statement is bounded
// by the batch limits instead (one row, at most 32 MiB).
import "server-only";
import type { Clock } from "@/server/clock";

export const STATEMENT_DEADLINE_MS = 200;

export class StatementDeadlineError extends Error {
  readonly code = "statement_deadline";
  constructor(readonly elapsedMs: number) {
    super(`cleanup batch exceeded its ${STATEMENT_DEADLINE_MS} ms deadline`);
    this.name = "StatementDeadlineError";
  }
}

export type Deadline = { check(): void; elapsed(): number };

/** Starts a deadline now; `check()` throws once more than `limitMs` has elapsed. */
export function startDeadline(options: { clock: Clock; limitMs?: number }): Deadline {
  const { clock, limitMs = STATEMENT_DEADLINE_MS } = options;
  const startedMs = clock.now();
  const elapsed = () => clock.now() - startedMs;
  return {
    elapsed,
    check() {
      const spent = elapsed();
      if (spent > limitMs) throw new StatementDeadlineError(spent);
    },
  };
}
