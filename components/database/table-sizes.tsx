"use client";

import { useLocale, useTranslations } from "next-intl";
import type { TableStats } from "@/lib/database/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import styles from "./cards.module.css";

/** Per-table rows and bytes; on a phone each row becomes a small labelled card. */
export function TableSizes({ tables }: { tables: TableStats[] | null }) {
  const t = useTranslations("databaseCards.stats");
  const locale = useLocale();
  if (tables === null) return <p className={styles.muted}>{t("noTableSizes")}</p>;
  if (tables.length === 0) return <p className={styles.muted}>{t("noTables")}</p>;
  const estimated = tables.some((table) => table.bytesMethod === "remainder");
  return (
    <div className={styles.subsection}>
      <div className={styles.tableWrap}>
        <table className={`${styles.table} ${styles.stackTable}`} data-testid="table-sizes">
          <caption>{t("tablesCaption")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("table")}</th>
              <th scope="col" className={styles.num}>
                {t("rows")}
              </th>
              <th scope="col" className={styles.num}>
                {t("dataBytes")}
              </th>
              <th scope="col" className={styles.num}>
                {t("indexBytes")}
              </th>
              <th scope="col" className={styles.num}>
                {t("totalBytes")}
              </th>
            </tr>
          </thead>
          <tbody>
            {tables.map((table) => (
              <tr key={table.name} data-testid={`table-row-${table.name}`}>
                <td data-label={t("table")} className={styles.mono}>
                  {table.name}
                  {table.bytesMethod === "remainder" ? " *" : ""}
                </td>
                <td data-label={t("rows")} className={styles.num}>
                  {formatCount(table.rows, locale)}
                </td>
                <td data-label={t("dataBytes")} className={styles.num}>
                  {formatBytes(table.tableBytes, locale)}
                </td>
                <td data-label={t("indexBytes")} className={styles.num}>
                  {formatBytes(table.indexBytes, locale)}
                </td>
                <td data-label={t("totalBytes")} className={styles.num}>
                  {formatBytes(table.totalBytes, locale)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {estimated && <p className={styles.muted}>{t("remainderNote")}</p>}
    </div>
  );
}
