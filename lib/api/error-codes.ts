// The closed set of error codes the API answers with, and their HTTP status.
// This is the one table: route handlers never pick a status themselves.
export const ERROR_STATUS = {
  invalid_request: 400,
  // The body is not valid UTF-8: refused, never decoded with replacement characters.
  invalid_body: 400,
  backup_choice_required: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  cross_origin: 403,
  not_found: 404,
  conflict: 409,
  operation_active: 409,
  cleanup_not_approved: 409,
  checkpoint_mode_mismatch: 409,
  checkpoint_lineage_integrity: 409,
  tool_call_replay_refused: 409,
  // A stored settings record failed strict validation: it blocks the
  // feature until an administrator replaces it.
  settings_malformed: 409,
  // Restore refused: the chosen backup fails verification.
  backup_unusable: 409,
  // Delete refused: the backup is pinned (compaction's preparation receipt)
  // and the administrator has not typed its name to confirm.
  backup_pinned: 409,
  // A manual run outside the configured maintenance window without the
  // administrator's confirmation (runBody.outsideWindow).
  outside_maintenance_window: 409,
  tool_payload_removed: 410,
  payload_too_large: 413,
  too_many_requests: 429,
  internal_error: 500,
  // A backup could not be written or verified; nothing was published.
  backup_failed: 500,
  unsupported_engine: 501,
  checkpoint_mode_reconfiguration: 503,
  maintenance_busy: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error body every route answers with. */
export type ErrorBody = { error: { code: ErrorCode; message: string } } & Record<string, unknown>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}
