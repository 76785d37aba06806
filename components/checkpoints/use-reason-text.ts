"use client";
// A skip reason or error code of scheduled maintenance as a phrase; codes
// outside the closed list read as "an unexpected problem".
import { useTranslations } from "next-intl";
import { useCallback } from "react";

const REASONS = [
  "run_in_flight",
  "recent_activity",
  "activity_unknown",
  "maintenance_busy",
  "maintenance_window_closed",
  "window_closed",
  "shutdown",
  "policy_changed",
  "backup_missing",
  "backup_changed",
  "backup_corrupt",
  "backup_failed",
  "preparation_cancelled",
] as const;
type Reason = (typeof REASONS)[number];

export function useReasonText(): (code: string | null | undefined) => string {
  const t = useTranslations("checkpoints.schedule.reasons");
  return useCallback((code) => t((REASONS as readonly string[]).includes(code ?? "") ? (code as Reason) : "other"), [t]);
}
