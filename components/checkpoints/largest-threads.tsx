"use client";

import { useLocale, useTranslations } from "next-intl";
import type { ThreadUsage } from "@/lib/checkpoints/api";
import { useThreadTitles } from "@/lib/checkpoints/client/use-thread-titles";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { DataTable } from "@/components/ui/data-table";
import { ThreadName } from "./thread-name";
import styles from "./checkpoint-storage-card.module.css";

/**
 * The heaviest threads by stored payload: each by its title and a shortened
 * id, opening the thread view. On a phone each row is a stacked card.
 */
export function LargestThreads({ threads }: { threads: ThreadUsage[] }) {
  const t = useTranslations("checkpoints.card");
  const locale = useLocale();
  const titles = useThreadTitles(threads.map((thread) => thread.threadId));
  if (threads.length === 0) return null;
  return (
    <div className={styles.tableWrap}>
      <DataTable
        classes={styles}
        caption={t("largestThreads")}
        testId="checkpoint-largest-threads"
        stack
        rows={threads}
        rowKey={(thread) => thread.threadId}
        rowTestId={() => "largest-thread"}
        columns={[
          {
            key: "thread",
            header: t("thread"),
            rowHeader: true,
            cell: (thread) => {
              const title = titles.titles.get(thread.threadId);
              return (
                <Link
                  href={`/settings/data-logs/database/threads/${encodeURIComponent(thread.threadId)}`}
                  className={styles.threadLink}
                  aria-label={title ? t("openThreadNamed", { title, id: thread.threadId }) : t("openThread", { id: thread.threadId })}
                >
                  <ThreadName threadId={thread.threadId} title={title} loading={titles.isPending} />
                </Link>
              );
            },
          },
          { key: "checkpoints", header: t("checkpointRows"), numeric: true, cell: (thread) => formatCount(thread.checkpoints, locale) },
          { key: "writes", header: t("writeRows"), numeric: true, cell: (thread) => formatCount(thread.writes, locale) },
          { key: "size", header: t("payloadBytes"), numeric: true, cell: (thread) => formatBytes(thread.bytes, locale) },
        ]}
      />
    </div>
  );
}
