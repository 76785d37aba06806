import "server-only";
import type { AuthStore, ThrottleRecord } from "./store";

// Two counters per attempt, in the login_throttle table:
// - per address (`address:<ip or IPv6 /64>`): more than ADDRESS_MAX_FAILURES
//   failures in ADDRESS_WINDOW_MS lock that address for the rest of the
//   window, whatever the account. This is what stops one client spraying
//   many accounts.
// - per account (`account:<email>`): after ACCOUNT_FREE_FAILURES failures
//   each further one doubles a delay (2 s, 4 s, ... up to 15 min). The delay
//   is enforced only on addresses that themselves have recent failures: an
//   address with a clean record may always try, so guesses from elsewhere
//   never lock the owner out, while a guesser pays the delay on every
//   address it has already used.
// For account rows `windowStartMs` holds the time of the latest failure.
export const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
export const ADDRESS_MAX_FAILURES = 20;
export const ACCOUNT_FREE_FAILURES = 3;
export const ACCOUNT_BASE_DELAY_MS = 2000;
export const ACCOUNT_MAX_DELAY_MS = 15 * 60 * 1000;
/** An account's count starts over after this long without a failure. */
export const ACCOUNT_FORGET_MS = 60 * 60 * 1000;

export type ThrottleKeys = { account: string; address: string };

export function throttleKeys(options: { email: string; address: string }): ThrottleKeys {
  return { account: `account:${options.email}`, address: `address:${options.address}` };
}

function addressFailures(row: ThrottleRecord | null, nowMs: number): number {
  return row && nowMs - row.windowStartMs < ADDRESS_WINDOW_MS ? row.failures : 0;
}

function accountFailures(row: ThrottleRecord | null, nowMs: number): number {
  return row && nowMs - row.windowStartMs < ACCOUNT_FORGET_MS ? row.failures : 0;
}

export function accountDelayMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(ACCOUNT_MAX_DELAY_MS, ACCOUNT_BASE_DELAY_MS * 2 ** (failures - ACCOUNT_FREE_FAILURES));
}

/**
 * Admits one sign-in attempt or says how long to wait. An admitted attempt is
 * counted as a failure against both keys at once, in the same transaction,
 * before the (slow, async) password check: parallel guesses cannot all pass
 * the check first. A success then takes it back (forgiveAttempt).
 */
export function beginAttempt(store: AuthStore, options: { keys: ThrottleKeys; nowMs: number }): { waitMs: number } {
  const { keys, nowMs } = options;
  return store.writeTransaction((tx) => {
    const address = tx.readThrottle(keys.address);
    const account = tx.readThrottle(keys.account);
    const fromAddress = addressFailures(address, nowMs);
    const addressLock = address?.lockedUntilMs != null && address.lockedUntilMs > nowMs ? address.lockedUntilMs - nowMs : 0;
    if (addressLock > 0) return { waitMs: addressLock };
    const accountWait = account?.lockedUntilMs != null && account.lockedUntilMs > nowMs ? account.lockedUntilMs - nowMs : 0;
    if (accountWait > 0 && fromAddress > 0) return { waitMs: accountWait };

    const addressCount = fromAddress + 1;
    tx.saveThrottle({
      key: keys.address,
      failures: addressCount,
      windowStartMs: fromAddress > 0 ? address!.windowStartMs : nowMs,
      lockedUntilMs: addressCount >= ADDRESS_MAX_FAILURES ? (fromAddress > 0 ? address!.windowStartMs : nowMs) + ADDRESS_WINDOW_MS : null,
    });
    const accountCount = accountFailures(account, nowMs) + 1;
    const delay = accountDelayMs(accountCount);
    tx.saveThrottle({ key: keys.account, failures: accountCount, windowStartMs: nowMs, lockedUntilMs: delay > 0 ? nowMs + delay : null });
    return { waitMs: 0 };
  });
}

/**
 * After a correct password: the account starts over, and the address gets
 * back the one failure counted up front (not more, so signing in to one
 * valid account cannot wash an address's record of failures on others).
 */
export function forgiveAttempt(store: AuthStore, options: { keys: ThrottleKeys; nowMs: number }): void {
  store.writeTransaction((tx) => {
    tx.clearThrottle(options.keys.account);
    const address = tx.readThrottle(options.keys.address);
    if (!address) return;
    if (address.failures <= 1) tx.clearThrottle(options.keys.address);
    else tx.saveThrottle({ ...address, failures: address.failures - 1 });
  });
}
