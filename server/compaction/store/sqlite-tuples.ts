// Statements that return rows as arrays: on the pass's hot reads a row
// object built by the driver (one property set per column, from C++) costs
// more than the same object built in JavaScript from an array.
import "server-only";
import type { Statement } from "better-sqlite3";

const checked = new WeakSet<Statement>();

/** The statement in tuple mode, its columns checked once to be `names` in order (a mismatch is a bug here, not data). */
export function tuples(stmt: Statement, names: readonly string[]): Statement {
  if (checked.has(stmt)) return stmt;
  const actual = stmt.columns().map((column) => column.name);
  if (actual.join(",") !== names.join(",")) throw new Error(`statement columns ${actual.join(",")} are not ${names.join(",")}`);
  checked.add(stmt.raw(true));
  return stmt;
}
