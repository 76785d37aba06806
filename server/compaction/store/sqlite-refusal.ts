// Which SQLite errors from a row's guarded rewrite mean "the database refuses
// this row" (cleanup/write-refused.ts): a constraint or trigger (RAISE in a
// trigger is SQLITE_CONSTRAINT_TRIGGER), a value too big or of the wrong
// type. Anything else (busy, I/O, a full disk) is not about the row.
import "server-only";
import { WriteRefusedError } from "../cleanup/write-refused";

const REFUSALS = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH)/;

/** `error` as a WriteRefusedError naming `rowid` when SQLite refused the row, else unchanged. */
export function refusalOf(error: unknown, rowid: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && REFUSALS.test(code) ? new WriteRefusedError(rowid, code) : error;
}
