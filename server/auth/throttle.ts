import "server-only";
import type { RefusalMemo, RefusalScope } from "./refusal-memo";
import type { AuthStore, ThrottleRecord } from "./store";

// Counters per attempt, in the login_throttle table:
// - per address (`address:<ip or IPv6 /64>`): ADDRESS_MAX_FAILURES failures
//   in ADDRESS_WINDOW_MS lock that address for the rest of the window,
//   whatever the account. This is what stops one client spraying accounts.
// - per network (`net:<IPv4 /24 or IPv6 /48>`): NET_MAX_FAILURES failures in
//   the same window lock the whole network, so rotating through the
//   addresses of one allocation (an IPv6 /48 holds 65,536 /64s) buys no
//   more guesses than a few addresses would.
// - per account (`account:<email>`): after ACCOUNT_FREE_FAILURES failures
//   each further one doubles a delay (2 s, 4 s, ... up to 15 min). While it
//   runs, only an address the account signed in from before (`known:`, kept
//   KNOWN_ADDRESS_MS) with a clean record of its own may try: the owner at a
//   usual place is never locked out by guesses from elsewhere, and fresh
//   addresses get one guess per delay between them all, not one each.
// For account rows `windowStartMs` holds the time of the latest failure; for
// known rows, the latest successful sign-in.
export const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
export const ADDRESS_MAX_FAILURES = 20;
export const NET_MAX_FAILURES = 100;
export const ACCOUNT_FREE_FAILURES = 3;
export const ACCOUNT_BASE_DELAY_MS = 2000;
export const ACCOUNT_MAX_DELAY_MS = 15 * 60 * 1000;
/** An account's count starts over after this long without a failure. */
export const ACCOUNT_FORGET_MS = 60 * 60 * 1000;
/** How long a successful sign-in makes its address a known one for that account. */
export const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;

export type ThrottleKeys = { account: string; address: string; net: string; known: string };

export function throttleKeys(options: { email: string; address: string; net: string }): ThrottleKeys {
  return {
    account: `account:${options.email}`,
    address: `address:${options.address}`,
    net: `net:${options.net}`,
    known: `known:${options.email}|${options.address}`,
  };
}

function windowFailures(row: ThrottleRecord | null, nowMs: number): number {
  return row && nowMs - row.windowStartMs < ADDRESS_WINDOW_MS ? row.failures : 0;
}

function accountFailures(row: ThrottleRecord | null, nowMs: number): number {
  return row && nowMs - row.windowStartMs < ACCOUNT_FORGET_MS ? row.failures : 0;
}

function lockLeft(row: ThrottleRecord | null, nowMs: number): number {
  return row?.lockedUntilMs != null && row.lockedUntilMs > nowMs ? row.lockedUntilMs - nowMs : 0;
}

export function accountDelayMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(ACCOUNT_MAX_DELAY_MS, ACCOUNT_BASE_DELAY_MS * 2 ** (failures - ACCOUNT_FREE_FAILURES));
}

/** True when this address signed in to this account within KNOWN_ADDRESS_MS. */
export async function isKnownAddress(store: AuthStore, options: { keys: ThrottleKeys; nowMs: number }): Promise<boolean> {
  const row = await store.readThrottle(options.keys.known);
  return row !== null && options.nowMs - row.windowStartMs < KNOWN_ADDRESS_MS;
}

async function countWindowFailure(tx: AuthStore, key: string, row: ThrottleRecord | null, nowMs: number, max: number): Promise<void> {
  const before = windowFailures(row, nowMs);
  const start = before > 0 ? row!.windowStartMs : nowMs;
  const count = before + 1;
  await tx.saveThrottle({ key, failures: count, windowStartMs: start, lockedUntilMs: count >= max ? start + ADDRESS_WINDOW_MS : null });
}

/**
 * Admits one sign-in attempt or says how long to wait. An admitted attempt is
 * counted as a failure against every key at once, in the same transaction,
 * before the (slow, async) password check: parallel guesses cannot all pass
 * the check first. A success then takes it back (forgiveAttempt).
 */
export async function beginAttempt(
  store: AuthStore,
  options: { keys: ThrottleKeys; nowMs: number; known: boolean; memo: RefusalMemo },
): Promise<{ waitMs: number }> {
  const { keys, nowMs, known, memo } = options;
  const remembered = memo.waitMs({ keys, known, nowMs });
  if (remembered > 0) return { waitMs: remembered };
  const refused = (scope: RefusalScope, waitMs: number, stillUntilMs = nowMs + waitMs) => {
    memo.remember({ keys, known, scope, untilMs: Math.min(nowMs + waitMs, stillUntilMs) });
    return { waitMs };
  };
  return store.writeTransaction(async (tx) => {
    const address = await tx.readThrottle(keys.address);
    const net = await tx.readThrottle(keys.net);
    const account = await tx.readThrottle(keys.account);
    const addressLock = lockLeft(address, nowMs);
    if (addressLock > 0) return refused("address", addressLock);
    // A network lock spares the owner at a known address: a neighbour's guesses must not lock them out.
    const netLock = known ? 0 : lockLeft(net, nowMs);
    if (netLock > 0) return refused("net", netLock);
    const accountWait = lockLeft(account, nowMs);
    if (accountWait > 0 && !known) return refused("account", accountWait);
    // A known client is held only while its address has failures in the window: remembered no longer than that.
    if (accountWait > 0 && windowFailures(address, nowMs) > 0) return refused("account", accountWait, address!.windowStartMs + ADDRESS_WINDOW_MS);

    await countWindowFailure(tx, keys.address, address, nowMs, ADDRESS_MAX_FAILURES);
    await countWindowFailure(tx, keys.net, net, nowMs, NET_MAX_FAILURES);
    const accountCount = accountFailures(account, nowMs) + 1;
    const delay = accountDelayMs(accountCount);
    await tx.saveThrottle({ key: keys.account, failures: accountCount, windowStartMs: nowMs, lockedUntilMs: delay > 0 ? nowMs + delay : null });
    return { waitMs: 0 };
  });
}

async function giveBack(tx: AuthStore, key: string): Promise<void> {
  const row = await tx.readThrottle(key);
  if (!row) return;
  if (row.failures <= 1) await tx.clearThrottle(key);
  else await tx.saveThrottle({ ...row, failures: row.failures - 1 });
}

/**
 * After a correct password: the account starts over, the address and its
 * network get back the one failure counted up front (not more, so signing in
 * to one valid account cannot wash a record of failures on others), and the
 * address becomes a known one for this account.
 */
export async function forgiveAttempt(store: AuthStore, options: { keys: ThrottleKeys; nowMs: number; memo: RefusalMemo }): Promise<void> {
  options.memo.forgetAccount(options.keys.account);
  await store.writeTransaction(async (tx) => {
    await tx.clearThrottle(options.keys.account);
    await giveBack(tx, options.keys.address);
    await giveBack(tx, options.keys.net);
    await tx.saveThrottle({ key: options.keys.known, failures: 0, windowStartMs: options.nowMs, lockedUntilMs: null });
  });
}

/**
 * Deletes throttle rows that no longer say anything: windows and locks that
 * ended, accounts forgotten, known addresses expired. Startup and every
 * PRUNE_EVERY_MS (startup.ts); returns how many.
 */
export async function pruneThrottle(store: AuthStore, options: { nowMs: number }): Promise<number> {
  const { nowMs } = options;
  return store.writeTransaction(
    async (tx) =>
      (await tx.deleteThrottleBefore({ prefix: "address:", windowStartBeforeMs: nowMs - ADDRESS_WINDOW_MS, nowMs })) +
      (await tx.deleteThrottleBefore({ prefix: "net:", windowStartBeforeMs: nowMs - ADDRESS_WINDOW_MS, nowMs })) +
      (await tx.deleteThrottleBefore({ prefix: "account:", windowStartBeforeMs: nowMs - ACCOUNT_FORGET_MS, nowMs })) +
      (await tx.deleteThrottleBefore({ prefix: "known:", windowStartBeforeMs: nowMs - KNOWN_ADDRESS_MS, nowMs })),
  );
}

export const PRUNE_EVERY_MS = 15 * 60 * 1000;
