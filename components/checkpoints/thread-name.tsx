"use client";
import { useTranslations } from "next-intl";
import { shortId } from "@/lib/checkpoints/short-id";
import styles from "./checkpoint-storage-card.module.css";

/**
 * A thread as people recognise it: its title (the thread's `title` channel)
 * over a shortened id; the full id is the element's title and accessible
 * text. Without a title yet (loading, none set) the id leads.
 */
export function ThreadName({ threadId, title, loading = false }: { threadId: string; title: string | null | undefined; loading?: boolean }) {
  const t = useTranslations("checkpoints.card");
  return (
    <span className={styles.threadName} data-testid="thread-name">
      <span className={styles.threadTitle} data-testid="thread-title">
        {title ?? (loading ? t("titleLoading") : t("untitled"))}
      </span>
      <span className={styles.shortId} title={threadId}>
        <span aria-hidden="true">{shortId(threadId)}</span>
        <span className={styles.visuallyHidden}>{t("threadIdLabel", { id: threadId })}</span>
      </span>
    </span>
  );
}
