"use client";
// How long per-task restore stays possible (issue 29, deliver 7): only while
// a backup taken before the removals exists. Shown beside the compaction
// preparation's backup and in the confirmation that deletes it.
import { useTranslations } from "next-intl";

export function RestoreWindowNote({ context, className }: { context: "receipt" | "delete"; className?: string }) {
  const t = useTranslations("taskCompaction.restoreWindow");
  return (
    <span className={className} data-testid={`restore-window-${context}`}>
      {t(context)}
    </span>
  );
}
