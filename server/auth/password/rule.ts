import type { PasswordProblem } from "@/lib/accounts/api";
import { MAX_PASSWORD_LENGTH } from "@/lib/auth/api";
import { COMMON_PASSWORDS } from "./common-passwords";

export { MAX_PASSWORD_LENGTH };
export const MIN_PASSWORD_LENGTH = 12;

// C0, DEL and C1 controls: a newline or tab cannot be typed into the sign-in
// form, so such an account could never sign in there.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why a new password is refused, or null when it is acceptable. Applied when
 * a password is chosen (createUser, `npm run users`, ADMIN_PASSWORD, a reset,
 * a change), never at sign-in, so accounts made under an older rule keep
 * working. The code travels in the error body for the browser to translate.
 */
export function passwordRuleBroken(password: string): { problem: PasswordProblem; message: string } | null {
  // Counted in code points so that one emoji is one character.
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return { problem: "too_short", message: `Password must be at least ${MIN_PASSWORD_LENGTH} characters` };
  if (length > MAX_PASSWORD_LENGTH) return { problem: "too_long", message: `Password must be at most ${MAX_PASSWORD_LENGTH} characters` };
  if (CONTROL.test(password)) {
    return { problem: "control_characters", message: "Password must not contain control characters (newline, tab and the like)" };
  }
  if (password.trim() === "" || new Set(password).size === 1) return { problem: "repeated", message: "Password must not be one repeated character" };
  if (COMMON_PASSWORDS.has(password.toLowerCase())) {
    return { problem: "common", message: "Password is too common; choose one that is not on lists of frequent passwords" };
  }
  return null;
}

/** The sentence of passwordRuleBroken, or null. */
export function passwordProblem(password: string): string | null {
  return passwordRuleBroken(password)?.message ?? null;
}
