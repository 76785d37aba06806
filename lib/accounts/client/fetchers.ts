// Fetchers of account management (/api/v1/users) and of the user's own
// password change. Each passes the abort signal on, checks the answer
// against its schema and rejects with ApiError on any failure.
import {
  accountChangeSchema,
  accountListSchema,
  accountPath,
  accountsPath,
  endedSessionsSchema,
  sessionListSchema,
  type AccountChange,
  type AccountList,
  type AccountRole,
  type ChangePasswordBody,
  type CreateAccountBody,
  type EndedSessions,
  type SessionList,
} from "@/lib/accounts/api";
import { fetchParsed } from "@/lib/query/fetch-json";

export function fetchAccounts(signal?: AbortSignal): Promise<AccountList> {
  return fetchParsed(accountListSchema, accountsPath, { signal });
}

export function fetchAccountSessions(userId: string, signal?: AbortSignal): Promise<SessionList> {
  return fetchParsed(sessionListSchema, `${accountPath(userId)}/sessions`, { signal });
}

export function postCreateAccount(body: CreateAccountBody, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, accountsPath, { method: "POST", body, signal });
}

export function postDisableAccount(userId: string, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, `${accountPath(userId)}/disable`, { method: "POST", body: {}, signal });
}

export function postEnableAccount(userId: string, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, `${accountPath(userId)}/enable`, { method: "POST", body: {}, signal });
}

export function putAccountRole(userId: string, role: AccountRole, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, `${accountPath(userId)}/role`, { method: "PUT", body: { role }, signal });
}

export function postPasswordReset(userId: string, temporaryPassword: string, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, `${accountPath(userId)}/password-reset`, { method: "POST", body: { temporaryPassword }, signal });
}

export function deleteAccountSession(userId: string, sessionId: string, signal?: AbortSignal): Promise<EndedSessions> {
  return fetchParsed(endedSessionsSchema, `${accountPath(userId)}/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE", signal });
}

export function deleteAccountSessions(userId: string, signal?: AbortSignal): Promise<EndedSessions> {
  return fetchParsed(endedSessionsSchema, `${accountPath(userId)}/sessions`, { method: "DELETE", signal });
}

export function postChangePassword(body: ChangePasswordBody, signal?: AbortSignal): Promise<AccountChange> {
  return fetchParsed(accountChangeSchema, "/api/v1/auth/password", { method: "POST", body, signal });
}
