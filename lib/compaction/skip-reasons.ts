// The closed sets of skip reasons a pass can report. Task-level reasons come
// from eligibility and count tasks; row-level reasons come from the reducer
// and the batch and count messages. Shared so the card can name each one.

export const INELIGIBLE_REASONS = [
  "task_missing",
  // An administrator put the task on hold: checked before anything else about it.
  "held",
  "live_task",
  "unknown_state",
  "queued_admission",
  "session_active",
  "open_turn",
  "queued_message",
  "pending_input",
  "live_run",
  "missing_ownership",
  "invalid_timestamp",
  "recent_activity",
  "eligibility_budget",
] as const;

/**
 * Reducer outcomes, a stored value that is not text, then what a batch adds
 * (a changed row, an overrun, a rewrite the database refused).
 */
export const ROW_SKIP_REASONS = [
  "unsupported",
  "malformed",
  "already_removed",
  "no_payload",
  "oversize",
  "not_text",
  "conflict",
  "statement_deadline",
  "write_refused",
] as const;

export const SKIP_REASONS = [...INELIGIBLE_REASONS, ...ROW_SKIP_REASONS] as const;

export type IneligibleReason = (typeof INELIGIBLE_REASONS)[number];
export type RowSkipReason = (typeof ROW_SKIP_REASONS)[number];
