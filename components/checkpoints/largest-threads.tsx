"use client";

import { useLocale, useTranslations } from "next-intl";
import type { ThreadUsage } from "@/lib/checkpoints/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import styles from "./checkpoint-storage-card.module.css";

/** The heaviest threads by stored bytes: ids and counts only, never content. */
export function LargestThreads({ threads }: { threads: ThreadUsage[] }) {
  const t = useTranslations("checkpoints.card");
  const locale = useLocale();
  if (threads.length === 0) return null;
  return (
    <div className={styles.tableWrap} tabIndex={0} role="region" aria-label={t("largestThreads")}>
      <table className={styles.table} data-testid="checkpoint-largest-threads">
        <caption>{t("largestThreads")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("thread")}</th>
            <th scope="col" className={styles.num}>{t("checkpointRows")}</th>
            <th scope="col" className={styles.num}>{t("writeRows")}</th>
            <th scope="col" className={styles.num}>{t("size")}</th>
          </tr>
        </thead>
        <tbody>
          {threads.map((thread) => (
            <tr key={thread.threadId}>
              <td className={styles.mono}>{thread.threadId}</td>
              <td className={styles.num}>{formatCount(thread.checkpoints, locale)}</td>
              <td className={styles.num}>{formatCount(thread.writes, locale)}</td>
              <td className={styles.num}>{formatBytes(thread.bytes, locale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
