import "server-only";
import { AppError } from "@/server/errors";

/**
 * Bounds concurrent password hashing. Each scrypt holds 32 MiB and a libuv
 * thread (there are four by default, shared with file I/O), so a burst of
 * sign-ins must queue instead of starving every other request; past
 * `maxWaiting` queued attempts the next one is refused at once (429).
 *
 * Two lanes: `known` attempts (an address that signed in to that account
 * before) have a queue of their own and are served first, so a flood of
 * strangers' guesses cannot keep the owner out. And one group (a network,
 * IPv4 /24 or IPv6 /48) holds at most `maxPerGroup` places at once, running
 * or waiting: filling the gate takes many networks, not many addresses.
 */
export type GateTicket = { known?: boolean; group?: string };

export type WorkGate = {
  run<T>(work: () => Promise<T>, ticket?: GateTicket): Promise<T>;
  /** True when run() would refuse this ticket right now. */
  isFull(ticket?: GateTicket): boolean;
  /** running: now; peak: the most ever running at once; total: work started. */
  stats(): { running: number; waiting: number; peak: number; total: number };
};

function busy(): AppError {
  return new AppError("too_many_requests", "The server is busy with other sign-ins; try again shortly", { retryAfterSeconds: 1 });
}

export function createWorkGate(options: { concurrency: number; maxWaiting: number; maxPerGroup?: number }): WorkGate {
  const maxPerGroup = options.maxPerGroup ?? Number.POSITIVE_INFINITY;
  let running = 0;
  let peak = 0;
  let total = 0;
  const waiting: { known: (() => void)[]; stranger: (() => void)[] } = { known: [], stranger: [] };
  const groups = new Map<string, number>();

  // A finishing run hands its slot straight to the next waiter (known ones
  // first), so a new caller arriving in between cannot take it as well.
  const release = () => {
    const next = waiting.known.shift() ?? waiting.stranger.shift();
    if (next) next();
    else running -= 1;
  };

  const queueOf = (ticket: GateTicket) => (ticket.known ? waiting.known : waiting.stranger);
  const full = (ticket: GateTicket) => {
    if (ticket.group !== undefined && (groups.get(ticket.group) ?? 0) >= maxPerGroup) return true;
    return running >= options.concurrency && queueOf(ticket).length >= options.maxWaiting;
  };

  return {
    async run(work, ticket = {}) {
      if (full(ticket)) throw busy();
      const group = ticket.group;
      if (group !== undefined) groups.set(group, (groups.get(group) ?? 0) + 1);
      try {
        if (running >= options.concurrency) await new Promise<void>((resolve) => queueOf(ticket).push(resolve));
        else running += 1;
        total += 1;
        peak = Math.max(peak, running);
        try {
          return await work();
        } finally {
          release();
        }
      } finally {
        if (group !== undefined) {
          const left = (groups.get(group) ?? 1) - 1;
          if (left > 0) groups.set(group, left);
          else groups.delete(group);
        }
      }
    },
    isFull: (ticket = {}) => full(ticket),
    stats: () => ({ running, waiting: waiting.known.length + waiting.stranger.length, peak, total }),
  };
}

export const PASSWORD_WORK_CONCURRENCY = 2;
export const PASSWORD_WORK_MAX_WAITING = 32;
/** Places one network may hold in the gate at once. */
export const PASSWORD_WORK_PER_NETWORK = 4;

export function createPasswordWorkGate(): WorkGate {
  return createWorkGate({ concurrency: PASSWORD_WORK_CONCURRENCY, maxWaiting: PASSWORD_WORK_MAX_WAITING, maxPerGroup: PASSWORD_WORK_PER_NETWORK });
}
