import "server-only";
import type { ThrottleKeys } from "./throttle";

// Why: a throttled client that keeps asking (a flood of 429s) would otherwise
// cost a write transaction per request, taking the database's one writer from
// everyone else for an answer that cannot change. Until a refusal's wait ends
// the same client gets it again from here. Only refusals are remembered, and a
// wait only gets shorter in the database when a sign-in succeeds
// (forgiveAttempt clears the account), which forgets that account here. A
// success on another instance is not seen: this instance then stays stricter
// until the wait ends, never looser.

/** What the database refused on: the address, its network, or this account from this client. */
export type RefusalScope = "address" | "net" | "account";

export type RefusalMemo = {
  /** Milliseconds this client must still wait, or 0 when only the database can tell. */
  waitMs(options: { keys: ThrottleKeys; known: boolean; nowMs: number }): number;
  remember(options: { keys: ThrottleKeys; known: boolean; scope: RefusalScope; untilMs: number }): void;
  /** A sign-in to this account succeeded: its delays start over. */
  forgetAccount(account: string): void;
  size(): number;
};

/** Bounds the memory an attacker rotating addresses can make us hold; the oldest entry goes first. */
export const REFUSAL_MEMO_MAX_ENTRIES = 10_000;

type Entry = { untilMs: number; account: string | null };

function entryKey(scope: RefusalScope, keys: ThrottleKeys, known: boolean): string {
  if (scope === "address") return `a\n${keys.address}`;
  if (scope === "net") return `n\n${keys.net}`;
  return `c\n${keys.address}\n${keys.account}\n${known ? 1 : 0}`;
}

export function createRefusalMemo(options: { maxEntries?: number } = {}): RefusalMemo {
  const maxEntries = options.maxEntries ?? REFUSAL_MEMO_MAX_ENTRIES;
  const entries = new Map<string, Entry>();

  function left(key: string, nowMs: number): number {
    const entry = entries.get(key);
    if (!entry) return 0;
    if (entry.untilMs <= nowMs) {
      entries.delete(key);
      return 0;
    }
    return entry.untilMs - nowMs;
  }

  return {
    waitMs({ keys, known, nowMs }) {
      // The same order as beginAttempt: the address, then (for a client the account does not know) the network, then the account.
      return left(entryKey("address", keys, known), nowMs) || (known ? 0 : left(entryKey("net", keys, known), nowMs)) || left(entryKey("account", keys, known), nowMs);
    },
    remember({ keys, known, scope, untilMs }) {
      const key = entryKey(scope, keys, known);
      entries.delete(key);
      entries.set(key, { untilMs, account: scope === "account" ? keys.account : null });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    forgetAccount(account) {
      for (const [key, entry] of entries) if (entry.account === account) entries.delete(key);
    },
    size: () => entries.size,
  };
}
