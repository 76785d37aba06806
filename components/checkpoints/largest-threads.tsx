"use client";

import { useLocale, useTranslations } from "next-intl";
import type { ThreadUsage } from "@/lib/checkpoints/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { RegionTable } from "./region-table";
import styles from "./checkpoint-storage-card.module.css";

/** The heaviest threads by stored bytes: ids and counts only, never content; each id opens the thread view. */
export function LargestThreads({ threads }: { threads: ThreadUsage[] }) {
  const t = useTranslations("checkpoints.card");
  const locale = useLocale();
  if (threads.length === 0) return null;
  return (
    <RegionTable
      label={t("largestThreads")}
      testId="checkpoint-largest-threads"
      rows={threads}
      rowKey={(thread) => thread.threadId}
      columns={[
        {
          key: "thread",
          header: t("thread"),
          className: styles.mono,
          cell: (thread) => (
            <Link href={`/settings/data-logs/database/threads/${encodeURIComponent(thread.threadId)}`} className={styles.threadLink} aria-label={t("openThread", { id: thread.threadId })}>
              {thread.threadId}
            </Link>
          ),
        },
        { key: "checkpoints", header: t("checkpointRows"), numeric: true, cell: (thread) => formatCount(thread.checkpoints, locale) },
        { key: "writes", header: t("writeRows"), numeric: true, cell: (thread) => formatCount(thread.writes, locale) },
        { key: "size", header: t("size"), numeric: true, cell: (thread) => formatBytes(thread.bytes, locale) },
      ]}
    />
  );
}
