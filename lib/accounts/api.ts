// Wire types of account management (/api/v1/users, admins only) and of a
// user's own password change (/api/v1/auth/password), shared by the routes,
// the browser and `npm run users`.
import { z } from "zod";
import { MAX_PASSWORD_LENGTH } from "@/lib/auth/api";

export const roleSchema = z.enum(["admin", "viewer"]);
export type AccountRole = z.infer<typeof roleSchema>;

const password = z.string().min(1).max(MAX_PASSWORD_LENGTH);

/** Ids are the server's own (UUIDs for users, 32 hex digits for sessions): anything else is a 400 before any lookup. */
export const userParamsSchema = z.strictObject({ id: z.string().min(1).max(100) });
export const sessionParamsSchema = z.strictObject({ id: z.string().min(1).max(100), sessionId: z.string().regex(/^[0-9a-f]{32}$/) });

export const accountSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  status: z.enum(["active", "disabled"]),
  /** An admin set the current password: the user must replace it at their next sign-in. */
  mustChangePassword: z.boolean(),
  createdAt: z.string(),
  disabledAt: z.string().nullable(),
  /** Latest request of any of the user's sessions (activity is written at most once a minute). */
  lastActiveAt: z.string().nullable(),
  liveSessions: z.number().int().nonnegative(),
});
export type Account = z.infer<typeof accountSchema>;

export const accountListSchema = z.object({
  accounts: z.array(accountSchema),
  /** The signed-in admin's own id, so the screen can mark "you". */
  selfId: z.string(),
  /** The idle timeout in minutes, or null when there is none (SESSION_IDLE_MINUTES=0). */
  idleTimeoutMinutes: z.number().int().positive().nullable(),
});
export type AccountList = z.infer<typeof accountListSchema>;

export const accountChangeSchema = z.object({
  account: accountSchema,
  /** False when the account was already in the asked state (nothing was written). */
  changed: z.boolean(),
  /** Sessions the change ended (disable, reset, role change ends none). */
  endedSessions: z.number().int().nonnegative(),
});
export type AccountChange = z.infer<typeof accountChangeSchema>;

export const createAccountBodySchema = z.strictObject({
  email: z.string().trim().min(1).max(320),
  role: roleSchema,
  /** Given to the user out of band; they must replace it at first sign-in. */
  temporaryPassword: password,
});
export type CreateAccountBody = z.infer<typeof createAccountBodySchema>;

export const roleBodySchema = z.strictObject({ role: roleSchema });
export type RoleBody = z.infer<typeof roleBodySchema>;

export const passwordResetBodySchema = z.strictObject({ temporaryPassword: password });
export type PasswordResetBody = z.infer<typeof passwordResetBodySchema>;

export const sessionSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastActiveAt: z.string(),
  /** When it ends without further activity: the earlier of the idle and the absolute deadline. */
  endsAt: z.string(),
  /** "Firefox · Linux" from the browser's User-Agent, or null. */
  client: z.string().nullable(),
  /** The session this list was asked from. */
  current: z.boolean(),
});
export type AccountSession = z.infer<typeof sessionSchema>;

export const sessionListSchema = z.object({ sessions: z.array(sessionSchema) });
export type SessionList = z.infer<typeof sessionListSchema>;

export const endedSessionsSchema = z.object({ endedSessions: z.number().int().nonnegative() });
export type EndedSessions = z.infer<typeof endedSessionsSchema>;

export const changePasswordBodySchema = z.strictObject({ currentPassword: password, newPassword: password });
export type ChangePasswordBody = z.infer<typeof changePasswordBodySchema>;

/**
 * Why a new password is refused, in the error body beside the code
 * (`invalid_request`), so the browser can say it in the reader's language.
 */
export const PASSWORD_PROBLEMS = ["too_short", "too_long", "control_characters", "repeated", "common", "same_as_current"] as const;
export type PasswordProblem = (typeof PASSWORD_PROBLEMS)[number];
export const passwordProblemSchema = z.enum(PASSWORD_PROBLEMS);

export const accountsPath = "/api/v1/users";
export const accountPath = (id: string) => `${accountsPath}/${encodeURIComponent(id)}`;
