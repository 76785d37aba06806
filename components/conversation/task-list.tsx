"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useState } from "react";
import { useTaskList } from "@/lib/conversation/client/use-task-list";
import { formatDateTime } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ErrorSummary } from "@/components/database/error-summary";
import cards from "@/components/database/cards.module.css";
import { PageIntro } from "@/components/ui/page-intro";
import styles from "./conversation.module.css";
import { TaskStateBadge } from "./task-state-badge";

const PAGE = 50;

/** Tasks newest first, 50 per page, each linking to its conversation. */
export function TaskList() {
  const t = useTranslations("conversation.tasks");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const [offset, setOffset] = useState(0);
  const query = useTaskList(offset);
  const data = query.data;
  return (
    <div className={styles.page}>
      <PageIntro title={t("title")} description={t("description")} descriptionClassName={cards.muted} />
      {query.isPending && <LoadingPlaceholder label={t("loading")} />}
      {query.isError && <ErrorSummary title={t("loadFailed")} message={t("loadFailedBody")} error={query.error} focusOnMount />}
      {data && data.tasks.length === 0 && <p className={cards.muted}>{t("empty")}</p>}
      {data && data.tasks.length > 0 && (
        <ul className={styles.taskList} data-testid="task-list">
          {data.tasks.map((task) => {
            const ms = parseRfc3339(task.updatedAt);
            return (
              <li key={task.id}>
                <Link href={`/tasks/${encodeURIComponent(task.id)}`} className={styles.taskLink} data-testid="task-link">
                  <span className={styles.taskTitle}>{task.title || t("untitled")}</span>
                  <span className={styles.meta}>
                    <TaskStateBadge state={task.state} />
                    <span>{t("messageCount", { count: task.messageCount })}</span>
                    <span>{ms === null ? task.updatedAt : t("updated", { date: formatDateTime(ms, locale, timeZone) })}</span>
                  </span>
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      {data && data.total > PAGE && (
        <div className={styles.pager}>
          <button type="button" className={cards.button} disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            {t("previous")}
          </button>
          <span className={cards.muted}>{t("range", { from: offset + 1, to: Math.min(offset + PAGE, data.total), total: data.total })}</span>
          <button type="button" className={cards.button} disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>
            {t("next")}
          </button>
        </div>
      )}
    </div>
  );
}
