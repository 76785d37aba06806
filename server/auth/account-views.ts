// What account management shows: users with their session counts, and one
// user's live sessions. Ids, emails, roles and times only; never hashes.
import "server-only";
import type { Account, AccountList, AccountSession } from "@/lib/accounts/api";
import { formatUtc } from "@/lib/time/rfc3339";
import { AppError } from "@/server/errors";
import { liveAt, type SessionPolicy } from "./session-policy";
import type { AuthStore, SessionRecord, UserOverview } from "./store";
import { normalizeEmail } from "./users";

export type AccountReader = { stores: { auth: AuthStore }; clock: { now(): number }; sessionPolicy: SessionPolicy };

export function toAccount(user: UserOverview): Account {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    status: user.disabledAtMs === null ? "active" : "disabled",
    mustChangePassword: user.mustChangePassword,
    createdAt: user.createdAt,
    disabledAt: user.disabledAtMs === null ? null : formatUtc(user.disabledAtMs),
    lastActiveAt: user.lastSeenAtMs === null ? null : formatUtc(user.lastSeenAtMs),
    liveSessions: user.liveSessions,
  };
}

/** Minutes of the idle timeout, or null when it is off (longer than the absolute lifetime). */
export function idleTimeoutMinutes(policy: SessionPolicy): number | null {
  return policy.idleMs > policy.absoluteMs ? null : Math.round(policy.idleMs / 60_000);
}

export async function listAccounts(target: AccountReader, options: { selfId: string }): Promise<AccountList> {
  const users = await target.stores.auth.listUsers(liveAt(target.sessionPolicy, target.clock.now()));
  return { accounts: users.map(toAccount), selfId: options.selfId, idleTimeoutMinutes: idleTimeoutMinutes(target.sessionPolicy) };
}

/** One account as the list shows it (not_found when gone). */
export async function readAccount(target: AccountReader, userId: string): Promise<Account> {
  const user = (await target.stores.auth.listUsers(liveAt(target.sessionPolicy, target.clock.now()))).find((row) => row.id === userId);
  if (!user) throw new AppError("not_found", "No such user");
  return toAccount(user);
}

/** The id of the account with this email (not_found when none): `npm run users` names accounts by email. */
export async function accountIdByEmail(store: AuthStore, email: string): Promise<string> {
  const user = await store.findUserByEmail(normalizeEmail(email));
  if (!user) throw new AppError("not_found", "No user has this email");
  return user.id;
}

function toSession(session: SessionRecord, policy: SessionPolicy, currentId: string | null): AccountSession {
  return {
    id: session.id,
    createdAt: formatUtc(session.createdAtMs),
    lastActiveAt: formatUtc(session.lastSeenAtMs),
    endsAt: formatUtc(Math.min(session.expiresAtMs, session.lastSeenAtMs + Math.min(policy.idleMs, policy.absoluteMs))),
    client: session.client,
    current: session.id === currentId,
  };
}

export async function listAccountSessions(target: AccountReader, options: { userId: string; currentSessionId: string | null }): Promise<{ sessions: AccountSession[] }> {
  const store = target.stores.auth;
  if (!(await store.findUserById(options.userId))) throw new AppError("not_found", "No such user");
  const sessions = await store.listSessions({ userId: options.userId, ...liveAt(target.sessionPolicy, target.clock.now()) });
  return { sessions: sessions.map((session) => toSession(session, target.sessionPolicy, options.currentSessionId)) };
}
