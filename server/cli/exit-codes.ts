import type { ErrorCode } from "@/lib/api/error-codes";

/** The CLI's exit codes (documented in README, "Operator CLI"). */
export const EXIT = {
  done: 0,
  /** An unexpected failure, or an operation that ended failed. */
  failed: 1,
  usage: 2,
  /** A rule refused the command (e.g. backup_choice_required). */
  refused: 3,
  /** Another operation or process holds what the command needs. */
  conflict: 4,
  /** The operation stopped with work left (a slice ended, some batches failed). */
  partial: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const BY_CODE: Partial<Record<ErrorCode, ExitCode>> = {
  invalid_request: EXIT.usage,
  invalid_body: EXIT.usage,
  not_found: EXIT.usage,
  backup_choice_required: EXIT.refused,
  cleanup_not_approved: EXIT.refused,
  settings_malformed: EXIT.refused,
  backup_pinned: EXIT.refused,
  backup_unusable: EXIT.refused,
  no_restore_backup: EXIT.refused,
  checkpoint_mode_mismatch: EXIT.refused,
  checkpoint_mode_reconfiguration: EXIT.refused,
  unsupported_engine: EXIT.refused,
  outside_maintenance_window: EXIT.refused,
  conflict: EXIT.conflict,
  operation_active: EXIT.conflict,
  maintenance_busy: EXIT.conflict,
  maintenance_lock_changed: EXIT.conflict,
};

export function exitCodeForError(code: ErrorCode): ExitCode {
  return BY_CODE[code] ?? EXIT.failed;
}
