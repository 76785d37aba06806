import "server-only";
import { randomBytes, randomUUID, scrypt, scryptSync, timingSafeEqual } from "node:crypto";
import { AppError } from "@/server/errors";
import type { Role } from "./current-user";
import { passwordRuleBroken } from "./password/rule";
import type { AuthStore, UserRecord } from "./store";

// scrypt with N=2^15, r=8: each hash needs 32 MiB of memory, which is what
// makes offline guessing expensive. Parameters are stored with the hash so
// they can be raised later without invalidating existing users.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltBytes: 16 };
const MAX_MEM = 128 * SCRYPT.N * SCRYPT.r * 2;


export type CreateUserInput = {
  email: string;
  role: Role;
  password: string;
  nowMs: number;
  /** The password is a temporary one an admin chose: the user must replace it at first sign-in. */
  mustChangePassword?: boolean;
  /** A hash made beforehand (off the event loop: hashPasswordAsync); the password is still checked against the rule. */
  passwordHash?: string;
};
export type UserRow = UserRecord;

/** Emails compare case-insensitively and without surrounding blanks. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function hashPassword(password: string): string {
  const salt = randomBytes(SCRYPT.saltBytes);
  const key = scryptSync(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: MAX_MEM });
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64"), key.toString("base64")].join("$");
}

type ParsedHash = { N: number; r: number; p: number; salt: Buffer; key: Buffer };

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (!Number.isSafeInteger(N) || !Number.isSafeInteger(r) || !Number.isSafeInteger(p)) return null;
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const key = Buffer.from(parts[5] ?? "", "base64");
  if (salt.length === 0 || key.length === 0) return null;
  return { N: N!, r: r!, p: p!, salt, key };
}

/** hashPassword on libuv's thread pool: the event loop keeps serving while scrypt runs. */
export function hashPasswordAsync(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltBytes);
  return new Promise((resolve, reject) => {
    scrypt(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64"), key.toString("base64")].join("$")),
    );
  });
}

function deriveKey(password: string, parsed: ParsedHash): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const maxmem = Math.max(MAX_MEM, 128 * parsed.N * parsed.r * 2);
    scrypt(password, parsed.salt, parsed.key.length, { N: parsed.N, r: parsed.r, p: parsed.p, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Constant-time comparison of a password against a stored hash; malformed hashes never match. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await deriveKey(password, parsed);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/**
 * A hash of a random password, verified against when the email is unknown so
 * that unknown and known emails take the same time (no user enumeration).
 * Made once per runtime (its sign-in services hold it), on first use.
 */
export function decoyPasswordHash(): string {
  return hashPassword(randomUUID());
}

/**
 * Throws invalid_request with the reason when a new password breaks the rule
 * (password/rule.ts); the body's `passwordProblem` names the rule for the browser.
 */
export function validatePassword(password: string): void {
  const broken = passwordRuleBroken(password);
  if (broken) throw new AppError("invalid_request", broken.message, { passwordProblem: broken.problem });
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

/** The normalized email, or invalid_request. */
export function validEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!EMAIL_RE.test(email) || email.length > 320) throw new AppError("invalid_request", "Email address is not valid");
  return email;
}

export async function createUser(store: AuthStore, input: CreateUserInput): Promise<{ id: string }> {
  const email = validEmail(input.email);
  if (input.role !== "admin" && input.role !== "viewer") throw new AppError("invalid_request", "Role must be admin or viewer");
  validatePassword(input.password);
  const id = randomUUID();
  const passwordHash = input.passwordHash ?? hashPassword(input.password);
  const inserted = await store.insertUser({
    id,
    email,
    role: input.role,
    passwordHash,
    createdAt: new Date(input.nowMs).toISOString(),
    mustChangePassword: input.mustChangePassword ?? false,
  });
  if (inserted === "email_taken") throw new AppError("conflict", "A user with this email already exists");
  return { id };
}

export async function findUserByEmail(store: AuthStore, email: string): Promise<UserRow | null> {
  return await store.findUserByEmail(normalizeEmail(email));
}

export async function countUsers(store: AuthStore): Promise<number> {
  return await store.countUsers();
}
