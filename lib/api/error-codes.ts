// The closed set of error codes the API answers with, and their HTTP status.
// This is the one table: route handlers never pick a status themselves.
export const ERROR_STATUS = {
  invalid_request: 400,
  // The body is not valid UTF-8: refused, never decoded with replacement characters.
  invalid_body: 400,
  backup_choice_required: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  // The current password given to change it is wrong (not a 401: the session is fine).
  wrong_current_password: 400,
  forbidden: 403,
  // Signed in with a password an admin set: only the password change (and sign-out) answers.
  password_change_required: 403,
  // The right password for an account an admin has disabled.
  account_disabled: 403,
  cross_origin: 403,
  // A Host header outside ALLOWED_HOSTS (DNS rebinding): refused on every path.
  host_not_allowed: 421,
  // A mutation whose body is not declared application/json.
  unsupported_media_type: 415,
  not_found: 404,
  conflict: 409,
  // Refused: it would leave no enabled admin (disable or demote the last one).
  last_admin: 409,
  operation_active: 409,
  cleanup_not_approved: 409,
  checkpoint_mode_mismatch: 409,
  checkpoint_lineage_integrity: 409,
  tool_call_replay_refused: 409,
  // A stored settings record failed strict validation: it blocks the
  // feature until an administrator replaces it.
  settings_malformed: 409,
  // The maintenance lock to clear is no longer the one the admin was shown
  // (released, or taken by another holder meanwhile).
  maintenance_lock_changed: 409,
  // Restore refused: the chosen backup fails verification.
  backup_unusable: 409,
  // A per-task payload restore found no published backup taken before the
  // task's payloads were removed (name one, or there is none to restore from).
  no_restore_backup: 409,
  // Delete refused: the backup is pinned (compaction's preparation receipt)
  // and the administrator has not typed its name to confirm.
  backup_pinned: 409,
  // A manual run outside the configured maintenance window without the
  // administrator's confirmation (runBody.outsideWindow).
  outside_maintenance_window: 409,
  // Checkpoint Clean up named the analysis it was confirmed on, and that
  // analysis no longer describes the stored checkpoints (analyze again).
  analysis_outdated: 409,
  tool_payload_removed: 410,
  // A resume from a run handle whose time to live (CHECKPOINT_HANDLE_TTL_DAYS)
  // ran out and whose checkpoint retention then reclaimed.
  checkpoint_handle_expired: 410,
  // The thread was deleted by thread expiry: it and every run handle of it
  // answer this (its tombstone keeps when and why), never a bare 404.
  thread_expired: 410,
  payload_too_large: 413,
  too_many_requests: 429,
  internal_error: 500,
  // A backup could not be written or verified; nothing was published.
  backup_failed: 500,
  // The backups folder is a symlink or not a private directory: never followed.
  backups_folder_unsafe: 500,
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
