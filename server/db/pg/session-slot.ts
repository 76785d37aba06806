// One dedicated PostgreSQL session, opened on first use and opened again
// after it is lost: what holds session-level state (an advisory lock, a
// LISTEN) asks for it here. Subscribers hear when the session they used is
// lost, since everything it held went with it.
import type { PgSession } from "./pg-db";

export type SessionSlot = {
  /** The live session, opening one when there is none (concurrent callers share one open). */
  get(): Promise<PgSession>;
  /** The live session, or null without opening one. */
  current(): PgSession | null;
  /** Called with the lost session each time one is lost. */
  onLost(fn: (lost: PgSession, error: Error) => void): void;
  /** Closes the session; get() refuses afterwards. */
  close(): Promise<void>;
};

export function createSessionSlot(open: () => Promise<PgSession>): SessionSlot {
  let session: PgSession | null = null;
  let opening: Promise<PgSession> | null = null;
  let closed = false;
  const listeners: Array<(lost: PgSession, error: Error) => void> = [];

  return {
    get() {
      if (closed) return Promise.reject(new Error("the session slot is closed"));
      if (session?.alive) return Promise.resolve(session);
      opening ??= open().then(
        (opened) => {
          opening = null;
          if (closed) {
            void opened.close();
            throw new Error("the session slot is closed");
          }
          session = opened;
          opened.onLost((error) => {
            if (session === opened) session = null;
            for (const fn of listeners) fn(opened, error);
          });
          return opened;
        },
        (error: unknown) => {
          opening = null;
          throw error;
        },
      );
      return opening;
    },
    current: () => (session?.alive ? session : null),
    onLost(fn) {
      listeners.push(fn);
    },
    async close() {
      closed = true;
      const last = session;
      session = null;
      await last?.close();
    },
  };
}
