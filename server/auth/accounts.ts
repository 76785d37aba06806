// Account lifecycle on one writer transaction each: disable, enable, change
// a role, set a temporary password, end sessions. Each verb re-reads the
// user inside its transaction, so the last-admin rule holds under races.
// Ending the user's open event streams is the caller's (account-service.ts):
// these verbs only touch the database.
import "server-only";
import { AppError } from "@/server/errors";
import { assertNotLastAdmin } from "./last-admin";
import type { AuthStore, Role, UserRecord } from "./store";

export type LifecycleResult = { user: UserRecord; changed: boolean; endedSessions: number };

async function requireUser(tx: AuthStore, id: string): Promise<UserRecord> {
  const user = await tx.findUserById(id);
  if (!user) throw new AppError("not_found", "No such user");
  return user;
}

/** Disables the account and revokes every session of it at once. */
export async function disableUser(store: AuthStore, options: { userId: string; nowMs: number }): Promise<LifecycleResult> {
  return store.writeTransaction(async (tx) => {
    const user = await requireUser(tx, options.userId);
    if (user.disabledAtMs !== null) return { user, changed: false, endedSessions: 0 };
    await assertNotLastAdmin(tx, user);
    await tx.updateUser({ id: user.id, disabledAtMs: options.nowMs });
    const endedSessions = await tx.revokeUserSessions({ userId: user.id, nowMs: options.nowMs });
    return { user: { ...user, disabledAtMs: options.nowMs }, changed: true, endedSessions };
  });
}

/** Enables the account again; sessions ended by the disable stay ended. */
export async function enableUser(store: AuthStore, options: { userId: string }): Promise<LifecycleResult> {
  return store.writeTransaction(async (tx) => {
    const user = await requireUser(tx, options.userId);
    if (user.disabledAtMs === null) return { user, changed: false, endedSessions: 0 };
    await tx.updateUser({ id: user.id, disabledAtMs: null });
    return { user: { ...user, disabledAtMs: null }, changed: true, endedSessions: 0 };
  });
}

/** Changes the role; takes effect on the user's next request (the role is read per request). */
export async function changeRole(store: AuthStore, options: { userId: string; role: Role }): Promise<LifecycleResult & { previousRole: Role }> {
  return store.writeTransaction(async (tx) => {
    const user = await requireUser(tx, options.userId);
    if (user.role === options.role) return { user, changed: false, endedSessions: 0, previousRole: user.role };
    if (options.role !== "admin") await assertNotLastAdmin(tx, user);
    await tx.updateUser({ id: user.id, role: options.role });
    return { user: { ...user, role: options.role }, changed: true, endedSessions: 0, previousRole: user.role };
  });
}

/**
 * Sets a temporary password (hashed by the caller, off the transaction) that
 * the user must replace at their next sign-in, and ends every session: the
 * old password may be what leaked.
 */
export async function setTemporaryPassword(store: AuthStore, options: { userId: string; passwordHash: string; nowMs: number }): Promise<LifecycleResult> {
  return store.writeTransaction(async (tx) => {
    const user = await requireUser(tx, options.userId);
    await tx.updateUser({ id: user.id, passwordHash: options.passwordHash, mustChangePassword: true });
    const endedSessions = await tx.revokeUserSessions({ userId: user.id, nowMs: options.nowMs });
    return { user: { ...user, passwordHash: options.passwordHash, mustChangePassword: true }, changed: true, endedSessions };
  });
}

/**
 * The user's own new password: clears the must-change mark and ends their
 * other sessions (the one that made the change goes on).
 */
export async function setOwnPassword(
  store: AuthStore,
  options: { userId: string; passwordHash: string; keepSessionId: string; nowMs: number },
): Promise<LifecycleResult> {
  return store.writeTransaction(async (tx) => {
    const user = await requireUser(tx, options.userId);
    if (user.disabledAtMs !== null) throw new AppError("account_disabled", "This account is disabled");
    await tx.updateUser({ id: user.id, passwordHash: options.passwordHash, mustChangePassword: false });
    const endedSessions = await tx.revokeUserSessions({ userId: user.id, nowMs: options.nowMs, exceptId: options.keepSessionId });
    return { user: { ...user, passwordHash: options.passwordHash, mustChangePassword: false }, changed: true, endedSessions };
  });
}

/** Ends one session of the user (not_found when it is not a live session of theirs). */
export async function endSession(store: AuthStore, options: { userId: string; sessionId: string; nowMs: number }): Promise<number> {
  return store.writeTransaction(async (tx) => {
    await requireUser(tx, options.userId);
    if (!(await tx.revokeSessionById({ id: options.sessionId, userId: options.userId, nowMs: options.nowMs }))) {
      throw new AppError("not_found", "No such session");
    }
    return 1;
  });
}

/** Ends every session of the user; returns how many. */
export async function endAllSessions(store: AuthStore, options: { userId: string; nowMs: number }): Promise<number> {
  return store.writeTransaction(async (tx) => {
    await requireUser(tx, options.userId);
    return await tx.revokeUserSessions({ userId: options.userId, nowMs: options.nowMs });
  });
}
