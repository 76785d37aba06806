import type { ErrorCode } from "@/lib/api/error-codes";

/**
 * A typed failure a server verb can raise. The message is shown to clients,
 * so it must never contain payload bodies, task titles or secrets.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra fields merged into the error body (e.g. removedAt for a 410). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.extra = extra;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
