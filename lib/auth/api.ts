// Wire types of the sign-in API (/api/v1/auth), shared by the routes and the browser.
import { z } from "zod";

/**
 * Longest password accepted anywhere, sign-in included. The body check runs
 * before any hashing, so an over-long password costs the server no scrypt.
 */
export const MAX_PASSWORD_LENGTH = 256;

export const loginBodySchema = z.strictObject({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});
export type LoginBody = z.infer<typeof loginBodySchema>;

export const authUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["admin", "viewer"]),
  /** Signed in with a password an admin set: the user must choose their own before anything else. */
  mustChangePassword: z.boolean(),
});
export type AuthUser = z.infer<typeof authUserSchema>;

/** GET /me and POST /login answer with the signed-in member. */
export const meResponseSchema = z.object({ user: authUserSchema });
export type MeResponse = z.infer<typeof meResponseSchema>;
