"use client";

import { useLocale, useTranslations } from "next-intl";
import type { TableUsage } from "@/lib/checkpoints/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import styles from "./checkpoint-storage-card.module.css";

/** Rows and payload bytes of the saver's two tables. */
export function TableUsageTable({ tables }: { tables: { checkpoints: TableUsage; writes: TableUsage } }) {
  const t = useTranslations("checkpoints.card");
  const locale = useLocale();
  const rows = [
    { key: "checkpoints", label: t("checkpointsTable"), usage: tables.checkpoints },
    { key: "writes", label: t("writesTable"), usage: tables.writes },
  ];
  return (
    <div className={styles.tableWrap} tabIndex={0} role="region" aria-label={t("tables")}>
      <table className={styles.table} data-testid="checkpoint-tables">
        <caption>{t("tables")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("table")}</th>
            <th scope="col" className={styles.num}>{t("rows")}</th>
            <th scope="col" className={styles.num}>{t("size")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              <td className={styles.num}>{formatCount(row.usage.rows, locale)}</td>
              <td className={styles.num}>{formatBytes(row.usage.bytes, locale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
