// Bounds the open event streams per session: each EventSource holds a
// connection and a bus subscription for as long as it lives, so one session
// must not be able to open them without limit.
export const MAX_STREAMS_PER_SESSION = 4;

export type StreamSlots = {
  /** A release function when `key` has a free slot, else null. Releasing twice is harmless. */
  tryAcquire(key: string): (() => void) | null;
  /** Open streams of `key`. */
  count(key: string): number;
};

export function createStreamSlots(options: { perKey: number } = { perKey: MAX_STREAMS_PER_SESSION }): StreamSlots {
  const open = new Map<string, number>();
  const count = (key: string) => open.get(key) ?? 0;
  return {
    count,
    tryAcquire(key) {
      if (count(key) >= options.perKey) return null;
      open.set(key, count(key) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = count(key) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      };
    },
  };
}
