import "server-only";
import { AppError } from "@/server/errors";
import type { SessionUser } from "./current-user";
import type { WorkGate } from "./password/work-gate";
import { createSession, type NewSession } from "./sessions";
import type { RefusalMemo } from "./refusal-memo";
import type { AuthStore } from "./store";
import { beginAttempt, forgiveAttempt, isKnownAddress, throttleKeys } from "./throttle";
import { findUserByEmail, normalizeEmail, verifyPassword } from "./users";

export type LoginInput = {
  email: string;
  password: string;
  /** The client's throttle key (client-address.ts: throttleAddressKey). */
  address: string;
  /** The client's network (client-address.ts: throttleNetKey). */
  net: string;
  nowMs: number;
  /** Bounds concurrent password hashing across the process. */
  gate: WorkGate;
  /** Throttle refusals still running (refusal-memo.ts): answered without a write transaction. */
  memo: RefusalMemo;
  /** The hash an unknown email is checked against (the runtime's: SignInServices.decoyHash). */
  decoyHash: () => string;
  /** The browser's label for the session list (client-label.ts). */
  client?: string | null;
};
export type LoginResult = { user: SessionUser; session: NewSession };

// One message for unknown email and wrong password: no user enumeration.
const INVALID = "Invalid email or password";

/**
 * Checks the throttle (throttle.ts), then the password through the work gate
 * (against a decoy hash when the email is unknown, so both cases cost the
 * same), then starts a session. The password rule for new accounts is not
 * applied here: accounts made under an older rule keep signing in.
 */
export async function login(store: AuthStore, input: LoginInput): Promise<LoginResult> {
  const email = normalizeEmail(input.email);
  const keys = throttleKeys({ email, address: input.address, net: input.net });
  const known = await isKnownAddress(store, { keys, nowMs: input.nowMs });
  const ticket = { known, group: input.net };
  // Refused before anything is counted: a busy server is not a failed guess.
  if (input.gate.isFull(ticket)) {
    throw new AppError("too_many_requests", "The server is busy with other sign-ins; try again shortly", { retryAfterSeconds: 1 });
  }
  const { waitMs } = await beginAttempt(store, { keys, nowMs: input.nowMs, known, memo: input.memo });
  if (waitMs > 0) {
    throw new AppError("too_many_requests", "Too many failed sign-in attempts; try again later", {
      retryAfterSeconds: Math.ceil(waitMs / 1000),
    });
  }
  const user = await findUserByEmail(store, email);
  const stored = user?.passwordHash ?? input.decoyHash();
  const ok = await input.gate.run(() => verifyPassword(input.password, stored), ticket);
  if (!user || !ok) throw new AppError("invalid_credentials", INVALID);
  await forgiveAttempt(store, { keys, nowMs: input.nowMs, memo: input.memo });
  // Said only to someone who knows the password: it reveals nothing to a guesser.
  if (user.disabledAtMs !== null) throw new AppError("account_disabled", "This account is disabled; ask an administrator");
  const session = await createSession(store, { userId: user.id, nowMs: input.nowMs, client: input.client ?? null });
  return { user: { id: user.id, email: user.email, role: user.role, mustChangePassword: user.mustChangePassword }, session };
}
