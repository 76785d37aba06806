"use client";

import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import type { EventSourceFactory } from "@/lib/events/client/event-stream";
import { useMessagesChangedEvents } from "@/lib/conversation/client/use-messages-changed-events";
import { useTaskConversation } from "@/lib/conversation/client/use-task-conversation";
import { formatCount, formatDateTime } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { ErrorSummary } from "@/components/database/error-summary";
import cards from "@/components/database/cards.module.css";
import { TaskCompactionPanel } from "@/components/task-compaction/task-compaction-panel";
import { MessageItem } from "./message-item";
import { TaskStateBadge } from "./task-state-badge";
import styles from "./conversation.module.css";

/** One task's conversation, read-only; outputs load lazily and honour compaction markers. Admins also get the task's hold and restore controls. */
export function ConversationView({ taskId, isAdmin = false, eventSource }: { taskId: string; isAdmin?: boolean; eventSource?: EventSourceFactory }) {
  const t = useTranslations("conversation");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const query = useTaskConversation(taskId);
  useMessagesChangedEvents(eventSource);
  const data = query.data;
  const updatedMs = data ? parseRfc3339(data.task.updatedAt) : null;
  return (
    <div className={styles.page}>
      <Link href="/tasks" className={styles.back}>
        {t("backToTasks")}
      </Link>
      {query.isPending && <LoadingPlaceholder label={t("loading")} />}
      {query.isError && (
        <>
          <h1>{t("title")}</h1>
          <ErrorSummary title={t("loadFailed")} message={t(query.error && "status" in query.error && query.error.status === 404 ? "notFound" : "loadFailedBody")} error={query.error} focusOnMount testId="conversation-error" />
        </>
      )}
      {data && (
        <>
          <div className={styles.intro}>
            <h1 data-testid="conversation-title">{data.task.title || t("untitled")}</h1>
            <div className={styles.meta}>
              <TaskStateBadge state={data.task.state} />
              <span>{t("messageCount", { count: data.messages.length })}</span>
              {updatedMs !== null && <span>{t("updated", { date: formatDateTime(updatedMs, locale, timeZone) })}</span>}
            </div>
            <p className={cards.muted}>{t("readOnly")}</p>
          </div>
          <TaskCompactionPanel taskId={taskId} isAdmin={isAdmin} eventSource={eventSource} />
          {data.messages.length === 0 ? (
            <p className={cards.muted}>{t("noMessages")}</p>
          ) : (
            <ol className={styles.messages} aria-label={t("messagesLabel")}>
              {data.messages.map((message) => (
                <MessageItem key={message.id} message={message} />
              ))}
            </ol>
          )}
          {data.truncated && <p className={cards.muted}>{t("truncated", { count: formatCount(data.messages.length, locale) })}</p>}
        </>
      )}
    </div>
  );
}
