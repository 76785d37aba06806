"use client";
// The task's hold: a switch beside its label for admins, the state for
// everyone (who set it and when). A held task is never compacted.
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { formatDateTime } from "@/lib/i18n/format";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import type { TaskHold } from "@/lib/task-compaction/api";
import { useSetTaskHold } from "@/lib/task-compaction/client/use-set-task-hold";
import { useTaskHold } from "@/lib/task-compaction/client/use-task-hold";
import { ErrorSummary } from "@/components/database/error-summary";
import styles from "./task-compaction.module.css";

function useHoldText(hold: TaskHold | undefined): string {
  const t = useTranslations("taskCompaction.hold");
  const locale = useLocale();
  const timeZone = useTimeZone();
  if (!hold) return t("loading");
  if (!hold.held) return t("off");
  const ms = hold.heldAt === null ? null : parseRfc3339(hold.heldAt);
  const who = hold.heldBy === "cli" ? t("byCli") : (hold.heldByEmail ?? t("byRemovedUser"));
  const since = ms === null ? (hold.heldAt ?? "") : formatDateTime(ms, locale, timeZone);
  return hold.restoreId ? t("onByRestore", { date: since, who }) : t("on", { date: since, who });
}

export function HoldControl({ taskId, isAdmin, busy }: { taskId: string; isAdmin: boolean; busy: boolean }) {
  const t = useTranslations("taskCompaction.hold");
  const errorMessage = useErrorMessage();
  const hold = useTaskHold(taskId);
  const setHold = useSetTaskHold(taskId);
  const text = useHoldText(hold.data);
  const held = hold.data?.held ?? false;
  return (
    <div className={styles.section} data-testid="task-hold">
      <div className={styles.switchRow}>
        <div className={styles.switchText}>
          {isAdmin ? (
            <label htmlFor="task-hold-switch" className={styles.label}>
              {t("label")}
            </label>
          ) : (
            <span className={styles.label}>{t("label")}</span>
          )}
          <span className={styles.muted} id="task-hold-state" data-testid="task-hold-state" aria-live="polite">
            {setHold.isPending ? t("saving") : text}
          </span>
        </div>
        {isAdmin ? (
          <button
            id="task-hold-switch"
            type="button"
            role="switch"
            className={styles.switch}
            aria-checked={held}
            aria-describedby="task-hold-state"
            // Not disabled while saving: a disabled button drops keyboard focus; a second press waits instead.
            disabled={!hold.data || busy}
            aria-busy={setHold.isPending}
            onClick={() => {
              if (!setHold.isPending) setHold.mutate(!held);
            }}
            data-testid="task-hold-switch"
          >
            <span className={styles.switchThumb} aria-hidden="true" />
          </button>
        ) : (
          hold.data && <span className={held ? styles.stateOn : styles.state}>{held ? t("badgeOn") : t("badgeOff")}</span>
        )}
      </div>
      {hold.isError && <ErrorSummary title={t("loadFailed")} message={errorMessage(hold.error)} error={hold.error} />}
      {setHold.isError && <ErrorSummary title={t("saveFailed")} message={errorMessage(setHold.error)} error={setHold.error} focusOnMount />}
    </div>
  );
}
