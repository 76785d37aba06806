// A signed-in user replaces their own password (required after an admin set
// a temporary one). The current password is checked like a sign-in: through
// the throttle (a stolen cookie cannot guess it at speed) and the hashing
// gate. On success the must-change mark is cleared and every other session
// of the user ends; the session that made the change goes on.
import "server-only";
import type { AccountChange } from "@/lib/accounts/api";
import { auditedAsync } from "@/server/audit/record";
import { AppError } from "@/server/errors";
import type { AccountTarget } from "./account-service";
import { readAccount } from "./account-views";
import { setOwnPassword } from "./accounts";
import type { WorkGate } from "./password/work-gate";
import type { RefusalMemo } from "./refusal-memo";
import type { LiveSession } from "./store";
import { beginAttempt, forgiveAttempt, isKnownAddress, throttleKeys } from "./throttle";
import { hashPasswordAsync, validatePassword, verifyPassword } from "./users";

export type ChangePasswordInput = {
  session: LiveSession;
  currentPassword: string;
  newPassword: string;
  /** The client's throttle key (client-address.ts: throttleAddressKey). */
  address: string;
  /** The client's network (client-address.ts: throttleNetKey). */
  net: string;
  gate: WorkGate;
  memo: RefusalMemo;
};

export async function changeOwnPassword(target: AccountTarget, input: ChangePasswordInput): Promise<AccountChange> {
  const { session, gate } = input;
  const userId = session.user.id;
  const store = target.stores.auth;
  const keys = throttleKeys({ email: session.user.email, address: input.address, net: input.net });
  const known = await isKnownAddress(store, { keys, nowMs: target.clock.now() });
  // Refused before anything is recorded: a throttled attempt costs the audit trail nothing.
  const { waitMs } = await beginAttempt(store, { keys, nowMs: target.clock.now(), known, memo: input.memo });
  if (waitMs > 0) {
    throw new AppError("too_many_requests", "Too many wrong passwords; try again later", { retryAfterSeconds: Math.ceil(waitMs / 1000) });
  }
  return auditedAsync(
    target,
    { actor: userId, kind: "user.password_changed", detail: (done: AccountChange) => ({ userId, sessions: done.endedSessions }), failureDetail: { userId } },
    async () => {
      const user = await store.findUserById(userId);
      if (!user) throw new AppError("unauthenticated", "Sign in to continue");
      const ok = await gate.run(() => verifyPassword(input.currentPassword, user.passwordHash), { known, group: input.net });
      if (!ok) throw new AppError("wrong_current_password", "The current password is incorrect");
      await forgiveAttempt(store, { keys, nowMs: target.clock.now(), memo: input.memo });
      if (input.newPassword === input.currentPassword) {
        throw new AppError("invalid_request", "Choose a password different from the current one", { passwordProblem: "same_as_current" });
      }
      validatePassword(input.newPassword);
      const passwordHash = await gate.run(() => hashPasswordAsync(input.newPassword));
      const result = await setOwnPassword(store, { userId, passwordHash, keepSessionId: session.id, nowMs: target.clock.now() });
      // The other sessions were just revoked: their streams end now, this one's goes on.
      await target.streams?.recheck();
      return { account: await readAccount(target, userId), changed: true, endedSessions: result.endedSessions };
    },
  );
}
