// The account verbs routes and `npm run users` call: each runs its change
// and its audit entry in one auth writer transaction (a refusal is recorded
// with its code), then ends the user's open event streams in this process.
// Streams of other processes (another PostgreSQL instance, the server while
// the CLI disables someone) end at their registry's next re-check.
import "server-only";
import type { AccountChange, AccountRole } from "@/lib/accounts/api";
import { audited, recordRefusal, type AuditActor, type AuditOptions } from "@/server/audit/record";
import type { AuditStore } from "@/server/audit/store";
import type { Clock } from "@/server/clock";
import type { StreamRegistry } from "@/server/events/stream-registry";
import { readAccount, type AccountReader } from "./account-views";
import { changeRole, disableUser, enableUser, endAllSessions, endSession, setTemporaryPassword, type LifecycleResult } from "./accounts";
import type { WorkGate } from "./password/work-gate";
import type { SessionPolicy } from "./session-policy";
import type { AuthStore } from "./store";
import { createUser, hashPasswordAsync, validatePassword } from "./users";

export type AccountTarget = AccountReader & {
  stores: { auth: AuthStore; audit: AuditStore };
  clock: Clock;
  sessionPolicy: SessionPolicy;
  /** This process's open event streams; null in `npm run users` (the server's re-check ends them there). */
  streams: StreamRegistry | null;
};

/**
 * Checks the rule and hashes on the thread pool, through the sign-in gate
 * when there is one (the server), so it never blocks requests. A refused
 * password is recorded as a refusal of the change it was for.
 */
async function hashNewPassword<T>(target: AccountTarget, audit: AuditOptions<T>, password: string, gate: WorkGate | null): Promise<string> {
  try {
    validatePassword(password);
    return await (gate ? gate.run(() => hashPasswordAsync(password)) : hashPasswordAsync(password));
  } catch (error) {
    await recordRefusal(target, audit, error);
    throw error;
  }
}

// Until the auth store is asynchronous (#27) its synchronous transaction
// runs inside the audit entry's: on SQLite it joins it as a savepoint; on
// PostgreSQL it takes the auth writer lock on its own session.
function auditedAuth<T>(target: AccountTarget, options: AuditOptions<T>, change: () => Promise<T>): Promise<T> {
  return audited(target, options, () => target.stores.auth.writeTransaction(() => change()));
}

async function answer(target: AccountTarget, result: LifecycleResult): Promise<AccountChange> {
  return { account: await readAccount(target, result.user.id), changed: result.changed, endedSessions: result.endedSessions };
}

export async function createAccount(
  target: AccountTarget,
  options: { actor: AuditActor; email: string; role: AccountRole; temporaryPassword: string; gate: WorkGate | null },
): Promise<AccountChange> {
  const audit: AuditOptions<{ id: string }> = {
    actor: options.actor,
    kind: "user.created",
    detail: (created) => ({ userId: created.id, role: options.role }),
    failureDetail: { role: options.role },
  };
  const passwordHash = await hashNewPassword(target, audit, options.temporaryPassword, options.gate);
  const { id } = await auditedAuth(
    target,
    audit,
    () =>
      createUser(target.stores.auth, {
        email: options.email,
        role: options.role,
        password: options.temporaryPassword,
        passwordHash,
        mustChangePassword: true,
        nowMs: target.clock.now(),
      }),
  );
  return { account: await readAccount(target, id), changed: true, endedSessions: 0 };
}

export async function disableAccount(target: AccountTarget, options: { actor: AuditActor; userId: string }): Promise<AccountChange> {
  const result = await auditedAuth(
    target,
    {
      actor: options.actor,
      kind: "user.disabled",
      detail: (done: LifecycleResult) => (done.changed ? { userId: done.user.id, sessions: done.endedSessions } : null),
      failureDetail: { userId: options.userId },
    },
    () => disableUser(target.stores.auth, { userId: options.userId, nowMs: target.clock.now() }),
  );
  target.streams?.endUser(options.userId, "session_ended");
  return answer(target, result);
}

export async function enableAccount(target: AccountTarget, options: { actor: AuditActor; userId: string }): Promise<AccountChange> {
  const result = await auditedAuth(
    target,
    {
      actor: options.actor,
      kind: "user.enabled",
      detail: (done: LifecycleResult) => (done.changed ? { userId: done.user.id } : null),
      failureDetail: { userId: options.userId },
    },
    () => enableUser(target.stores.auth, { userId: options.userId }),
  );
  return answer(target, result);
}

export async function changeAccountRole(target: AccountTarget, options: { actor: AuditActor; userId: string; role: AccountRole }): Promise<AccountChange> {
  const result = await auditedAuth(
    target,
    {
      actor: options.actor,
      kind: "user.role_changed",
      detail: (done: LifecycleResult & { previousRole: AccountRole }) =>
        done.changed ? { userId: done.user.id, role: done.user.role, previousRole: done.previousRole } : null,
      failureDetail: { userId: options.userId, role: options.role },
    },
    () => changeRole(target.stores.auth, { userId: options.userId, role: options.role }),
  );
  // Streams were admitted under the old role: their clients reconnect under the new one.
  if (result.changed) target.streams?.endUser(options.userId, "role_changed");
  return answer(target, result);
}

export async function resetAccountPassword(
  target: AccountTarget,
  options: { actor: AuditActor; userId: string; temporaryPassword: string; gate: WorkGate | null },
): Promise<AccountChange> {
  const audit: AuditOptions<LifecycleResult> = {
    actor: options.actor,
    kind: "user.password_reset",
    detail: (done) => ({ userId: done.user.id, sessions: done.endedSessions }),
    failureDetail: { userId: options.userId },
  };
  const passwordHash = await hashNewPassword(target, audit, options.temporaryPassword, options.gate);
  const result = await auditedAuth(
    target,
    audit,
    () => setTemporaryPassword(target.stores.auth, { userId: options.userId, passwordHash, nowMs: target.clock.now() }),
  );
  target.streams?.endUser(options.userId, "session_ended");
  return answer(target, result);
}

export async function endAccountSession(target: AccountTarget, options: { actor: AuditActor; userId: string; sessionId: string }): Promise<{ endedSessions: number }> {
  const endedSessions = await auditedAuth(
    target,
    { actor: options.actor, kind: "user.sessions_ended", detail: (count: number) => ({ userId: options.userId, sessions: count }), failureDetail: { userId: options.userId } },
    () => endSession(target.stores.auth, { userId: options.userId, sessionId: options.sessionId, nowMs: target.clock.now() }),
  );
  target.streams?.endSession(options.sessionId, "session_ended");
  return { endedSessions };
}

export async function endAccountSessions(target: AccountTarget, options: { actor: AuditActor; userId: string }): Promise<{ endedSessions: number }> {
  const endedSessions = await auditedAuth(
    target,
    {
      actor: options.actor,
      kind: "user.sessions_ended",
      detail: (count: number) => (count > 0 ? { userId: options.userId, sessions: count } : null),
      failureDetail: { userId: options.userId },
    },
    () => endAllSessions(target.stores.auth, { userId: options.userId, nowMs: target.clock.now() }),
  );
  target.streams?.endUser(options.userId, "session_ended");
  return { endedSessions };
}
