import "server-only";
import { randomBytes, randomUUID, scrypt, scryptSync, timingSafeEqual } from "node:crypto";
import { AppError } from "@/server/errors";
import type { Role } from "./current-user";
import { passwordProblem } from "./password/rule";
import type { AuthStore, UserRecord } from "./store";

// scrypt with N=2^15, r=8: each hash needs 32 MiB of memory, which is what
// makes offline guessing expensive. Parameters are stored with the hash so
// they can be raised later without invalidating existing users.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltBytes: 16 };
const MAX_MEM = 128 * SCRYPT.N * SCRYPT.r * 2;


export type CreateUserInput = { email: string; role: Role; password: string; nowMs: number };
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
 */
let decoyHash: string | undefined;
export function decoyPasswordHash(): string {
  decoyHash ??= hashPassword(randomUUID());
  return decoyHash;
}

/** Throws invalid_request with the reason when a new password breaks the rule (password/rule.ts). */
export function validatePassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw new AppError("invalid_request", problem);
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

export function createUser(store: AuthStore, input: CreateUserInput): { id: string } {
  const email = normalizeEmail(input.email);
  if (!EMAIL_RE.test(email) || email.length > 320) throw new AppError("invalid_request", "Email address is not valid");
  if (input.role !== "admin" && input.role !== "viewer") throw new AppError("invalid_request", "Role must be admin or viewer");
  validatePassword(input.password);
  const id = randomUUID();
  const passwordHash = hashPassword(input.password);
  const inserted = store.insertUser({ id, email, role: input.role, passwordHash, createdAt: new Date(input.nowMs).toISOString() });
  if (inserted === "email_taken") throw new AppError("conflict", "A user with this email already exists");
  return { id };
}

export function findUserByEmail(store: AuthStore, email: string): UserRow | null {
  return store.findUserByEmail(normalizeEmail(email));
}

export function countUsers(store: AuthStore): number {
  return store.countUsers();
}
