import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * True when the Authorization header carries `Bearer <expected>`. Both sides
 * are hashed first so the comparison is constant-time whatever their
 * lengths (timingSafeEqual needs equal lengths and would leak the length).
 */
export function bearerMatches(header: string | null, expected: string): boolean {
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  const given = match?.[1] ?? "";
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  const equal = timingSafeEqual(digest(given), digest(expected));
  return equal && given.length > 0;
}
