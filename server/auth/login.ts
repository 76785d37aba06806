import "server-only";
import { AppError } from "@/server/errors";
import type { SessionUser } from "./current-user";
import { createSession, type NewSession } from "./sessions";
import type { AuthStore } from "./store";
import { clearFailures, lockedForMs, recordFailure, throttleKeys } from "./throttle";
import { decoyPasswordHash, findUserByEmail, normalizeEmail, verifyPassword } from "./users";

export type LoginInput = { email: string; password: string; client: string; nowMs: number };
export type LoginResult = { user: SessionUser; session: NewSession };

// One message for unknown email and wrong password: no user enumeration.
const INVALID = "Invalid email or password";

/**
 * Checks the throttle, then the password (against a decoy hash when the email
 * is unknown, so both cases cost the same), then starts a session.
 */
export async function login(store: AuthStore, input: LoginInput): Promise<LoginResult> {
  const email = normalizeEmail(input.email);
  const keys = throttleKeys({ email, client: input.client });
  const waitMs = lockedForMs(store, { keys, nowMs: input.nowMs });
  if (waitMs > 0) {
    throw new AppError("too_many_requests", "Too many failed sign-in attempts; try again later", {
      retryAfterSeconds: Math.ceil(waitMs / 1000),
    });
  }
  // The attempt counts against the email before the (slow, async) password
  // check: parallel guesses cannot all pass the throttle check first.
  const [emailKey, clientKey] = keys as [string, string];
  recordFailure(store, { keys: [emailKey], nowMs: input.nowMs });
  const user = findUserByEmail(store, email);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? decoyPasswordHash());
  if (!user || !ok) {
    recordFailure(store, { keys: [clientKey], nowMs: input.nowMs });
    throw new AppError("invalid_credentials", INVALID);
  }
  clearFailures(store, { key: emailKey });
  const session = createSession(store, { userId: user.id, nowMs: input.nowMs });
  return { user: { id: user.id, email: user.email, role: user.role }, session };
}
