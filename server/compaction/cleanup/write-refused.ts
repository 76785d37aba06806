// A row whose guarded rewrite the database itself refuses: a trigger that
// raises, a constraint another tool added, a value the engine rejects. The
// stores turn such an error into this one (naming the row), the batch rolls
// back as for any error, and the pass sets the row aside: the next walk
// counts it `write_refused` and moves past it, so one row can never stop
// every pass at the same place. Errors that are not about the row (disk,
// lock, connection) stay what they are: the batch fails and is retried.
import "server-only";

export class WriteRefusedError extends Error {
  readonly code = "write_refused";
  constructor(
    readonly rowid: number,
    /** The engine's own code (SQLITE_CONSTRAINT_TRIGGER, SQLSTATE 23514, ...), for the log. */
    readonly engineCode: string,
  ) {
    super(`the database refused the rewrite of a message (${engineCode})`);
    this.name = "WriteRefusedError";
  }
}
