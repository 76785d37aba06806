"use client";

import { useLocale, useTranslations } from "next-intl";
import type { TableStats } from "@/lib/database/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { DataTable } from "@/components/ui/data-table";
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
        <DataTable
          classes={{ table: `${styles.table} ${styles.stackTable}`, num: styles.num }}
          testId="table-sizes"
          caption={t("tablesCaption")}
          rows={tables}
          rowKey={(table) => table.name}
          rowTestId={(table) => `table-row-${table.name}`}
          labelCells
          columns={[
            { key: "table", header: t("table"), className: styles.mono, cell: (table) => `${table.name}${table.bytesMethod === "remainder" ? " *" : ""}` },
            { key: "rows", header: t("rows"), numeric: true, cell: (table) => formatCount(table.rows, locale) },
            { key: "data", header: t("dataBytes"), numeric: true, cell: (table) => formatBytes(table.tableBytes, locale) },
            { key: "index", header: t("indexBytes"), numeric: true, cell: (table) => formatBytes(table.indexBytes, locale) },
            { key: "total", header: t("totalBytes"), numeric: true, cell: (table) => formatBytes(table.totalBytes, locale) },
          ]}
        />
      </div>
      {estimated && <p className={styles.muted}>{t("remainderNote")}</p>}
    </div>
  );
}
