// The open event streams of this process, by session and user. It bounds
// them (per session and per user: each EventSource holds a connection and a
// bus subscription for as long as it lives) and ends them when their
// session does: at once for changes made in this process (sign-out, an
// admin disabling the user or ending the session, a restore), and within
// STREAM_RECHECK_MS for everything else (another instance or `npm run users`
// changed the database, the session expired or went idle), by re-reading
// the sessions of all open streams in one query on a timer that runs only
// while streams are open.
import type { Role } from "@/server/auth/store";
import type { Timers } from "@/server/clock";
import type { Logger } from "@/server/log";

export const MAX_STREAMS_PER_SESSION = 4;
/** Two browsers with a few tabs each; one stolen session cannot take them all, another session of the user still can't exceed this. */
export const MAX_STREAMS_PER_USER = 8;
/** How often open streams' sessions are re-read: well inside the one second a disable must take. */
export const STREAM_RECHECK_MS = 500;

export type StreamOwner = { sessionId: string; userId: string; role: Role };
export type StreamEndReason = "session_ended" | "role_changed" | "restored" | "slow_client";

export type OpenStream = {
  /** Aborted (with the StreamEndReason as its reason) when the registry ends the stream. */
  ended: AbortSignal;
  /** Gives the slot back; harmless twice. */
  release(): void;
};

/** Of the given owners' sessions, the live ones with their user's current role; null when the database cannot answer now. */
export type SessionCheck = (sessionIds: string[]) => Promise<Map<string, Role> | null> | Map<string, Role> | null;

export type StreamRegistry = {
  tryOpen(owner: StreamOwner): OpenStream | { refused: "session" | "user" };
  /** Ends every stream of the user; returns how many. */
  endUser(userId: string, reason: StreamEndReason): number;
  endSession(sessionId: string, reason: StreamEndReason): number;
  endAll(reason: StreamEndReason): number;
  /** Re-reads the open streams' sessions now (the timer calls it); resolves once the streams it found dead have ended. */
  recheck(): Promise<void>;
  /** Resolves when no re-check is in flight (the one running, and one asked for meanwhile, have ended their streams). */
  settled(): Promise<void>;
  count(filter?: { sessionId?: string; userId?: string }): number;
  stop(): void;
};

type Entry = StreamOwner & { controller: AbortController; released: boolean };

export function createStreamRegistry(options: {
  timers: Timers;
  check: SessionCheck;
  log?: Logger;
  perSession?: number;
  perUser?: number;
  recheckMs?: number;
}): StreamRegistry {
  const perSession = options.perSession ?? MAX_STREAMS_PER_SESSION;
  const perUser = options.perUser ?? MAX_STREAMS_PER_USER;
  const recheckMs = options.recheckMs ?? STREAM_RECHECK_MS;
  const open = new Set<Entry>();
  let timer: unknown = null;
  let stopped = false;
  // One re-check at a time: a round asked for while one is in flight runs right after it, with the clock of then.
  let inFlight: Promise<void> | null = null;
  let again = false;

  const count = (filter: { sessionId?: string; userId?: string } = {}) => {
    let n = 0;
    for (const entry of open) {
      if (filter.sessionId !== undefined && entry.sessionId !== filter.sessionId) continue;
      if (filter.userId !== undefined && entry.userId !== filter.userId) continue;
      n++;
    }
    return n;
  };

  const release = (entry: Entry) => {
    if (entry.released) return;
    entry.released = true;
    open.delete(entry);
    if (open.size === 0 && timer !== null) {
      options.timers.clearTimeout(timer);
      timer = null;
    }
  };

  const end = (match: (entry: Entry) => boolean, reason: StreamEndReason) => {
    let ended = 0;
    for (const entry of [...open]) {
      if (!match(entry)) continue;
      release(entry);
      entry.controller.abort(reason);
      ended++;
    }
    return ended;
  };

  const arm = () => {
    if (timer !== null || stopped || open.size === 0) return;
    timer = options.timers.setTimeout(() => {
      timer = null;
      void round();
      arm();
    }, recheckMs);
  };

  const round = (): Promise<void> => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    const run = async () => {
      try {
        do {
          again = false;
          await recheckOnce();
        } while (again && !stopped);
      } finally {
        inFlight = null;
      }
    };
    inFlight = run();
    return inFlight;
  };

  const recheckOnce = async () => {
    if (open.size === 0) return;
    // Only the streams asked about are judged: one opened while the answer was on its way is not in it.
    const asked = new Set(open);
    let live: Map<string, Role> | null;
    try {
      live = await options.check([...new Set([...asked].map((entry) => entry.sessionId))]);
    } catch (error) {
      // A database busy with a restore: the next round asks again.
      options.log?.warn({ event: "stream_recheck_failed", err: { name: (error as Error)?.name } }, "event stream session re-check failed");
      return;
    }
    if (!live) return;
    end((entry) => asked.has(entry) && !live.has(entry.sessionId), "session_ended");
    end((entry) => asked.has(entry) && live.get(entry.sessionId) !== entry.role, "role_changed");
  };

  return {
    tryOpen(owner) {
      if (count({ sessionId: owner.sessionId }) >= perSession) return { refused: "session" };
      if (count({ userId: owner.userId }) >= perUser) return { refused: "user" };
      const entry: Entry = { ...owner, controller: new AbortController(), released: false };
      open.add(entry);
      arm();
      return { ended: entry.controller.signal, release: () => release(entry) };
    },
    endUser: (userId, reason) => end((entry) => entry.userId === userId, reason),
    endSession: (sessionId, reason) => end((entry) => entry.sessionId === sessionId, reason),
    endAll: (reason) => end(() => true, reason),
    recheck: round,
    settled: () => inFlight ?? Promise.resolve(),
    count,
    stop() {
      stopped = true;
      if (timer !== null) options.timers.clearTimeout(timer);
      timer = null;
    },
  };
}
