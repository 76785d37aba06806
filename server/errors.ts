import { isErrorCode, type ErrorCode } from "@/lib/api/error-codes";

/**
 * A typed failure a server verb can raise. The message is shown to clients,
 * so it must never contain payload bodies, task titles or secrets.
 */
// Next bundles each route separately, so a runtime service created in one
// module graph (the compaction worker, built at startup) can throw an AppError
// from another copy of this module: `instanceof` would miss it. The check is
// therefore by shape: the name every copy sets and a known error code.
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
  if (!(value instanceof Error) || value.name !== "AppError") return false;
  return isErrorCode((value as { code?: unknown }).code);
}
