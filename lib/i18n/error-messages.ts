// The one map from an API error code to its sentence: catalog namespace
// "apiErrors" (messages/api-errors/<locale>.json) holds a key per code of
// lib/api/error-codes.ts plus the two the client adds. A few codes read
// better naming the feature they came from; those have a per-feature key.
import { ERROR_STATUS, isErrorCode, type ErrorCode } from "@/lib/api/error-codes";
import { isApiError } from "@/lib/query/fetch-json";

export const ERROR_MESSAGES_NAMESPACE = "apiErrors";

export type ClientErrorCode = ErrorCode | "network_error" | "unknown_error";

export const CLIENT_ERROR_CODES: readonly ClientErrorCode[] = [...(Object.keys(ERROR_STATUS) as ErrorCode[]), "network_error", "unknown_error"];

/** Codes whose sentence names the feature, per feature (keys under apiErrors.byFeature). */
export const FEATURE_ERROR_CODES = {
  compaction: ["operation_active", "unsupported_engine"],
  checkpoints: ["operation_active", "unsupported_engine"],
} as const satisfies Record<string, readonly ErrorCode[]>;

export type ErrorFeature = keyof typeof FEATURE_ERROR_CODES;

/** The code of any thrown value: the API's code, network_error, or unknown_error. */
export function clientErrorCode(error: unknown): ClientErrorCode {
  if (isApiError(error)) return error.code;
  if (typeof error === "string" && (isErrorCode(error) || error === "network_error")) return error;
  return "unknown_error";
}

/** Every key of the apiErrors namespace; the typed catalog rejects a code without its sentence. */
export type ErrorMessageKey =
  | `codes.${ClientErrorCode}`
  | { [F in ErrorFeature]: `byFeature.${F}.${(typeof FEATURE_ERROR_CODES)[F][number]}` }[ErrorFeature];

/** The catalog key (inside apiErrors) of the sentence for a code. */
export function errorMessageKey(code: ClientErrorCode, feature?: ErrorFeature): ErrorMessageKey {
  const scoped = feature ? (FEATURE_ERROR_CODES[feature] as readonly string[]) : [];
  return (scoped.includes(code) ? `byFeature.${feature}.${code}` : `codes.${code}`) as ErrorMessageKey;
}
