import type { ErrorCode } from "@/lib/api/error-codes";

/**
 * A typed failure a server verb can raise. The message is shown to clients,
 * so it must never contain payload bodies, task titles or secrets.
 */
// Next bundles each route separately, so a process-wide singleton created by
// one route (the retention worker) can throw an AppError from another copy of
// this module: `instanceof` would miss it. A registered symbol brands them all.
const APP_ERROR = Symbol.for("workspace-retention.app-error");

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Extra fields merged into the error body (e.g. removedAt for a 410). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.extra = extra;
    Object.defineProperty(this, APP_ERROR, { value: true });
  }
}

export function isAppError(value: unknown): value is AppError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[APP_ERROR] === true;
}
