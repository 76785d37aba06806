// A PostgreSQL server error with its SQLSTATE, the same class whichever
// client raised it, so domain code tests codes and never a driver's types.

/** A server error with its SQLSTATE (e.g. 23505 unique violation, 57014 statement timeout, 55P03 lock timeout). */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "PgError";
  }
}

export const SQLSTATE = {
  uniqueViolation: "23505",
  queryCanceled: "57014",
  lockNotAvailable: "55P03",
} as const;
