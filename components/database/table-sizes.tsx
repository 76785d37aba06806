"use client";

import { useId, useMemo, useState } from "react";
import { useLocale, useTranslations } from "next-intl";
import type { TableStats } from "@/lib/database/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { DataTable } from "@/components/ui/data-table";
import styles from "./cards.module.css";

/** Largest first (ties by name), so the tables worth acting on lead the list. */
export function sortLargestFirst(tables: readonly TableStats[]): TableStats[] {
  return [...tables].sort((a, b) => b.totalBytes - a.totalBytes || a.name.localeCompare(b.name));
}

/**
 * Per-table rows and bytes, largest first. On a phone each row becomes a
 * small labelled card, and the whole list sits behind a disclosure button
 * (collapsed at first) so a dozen cards do not push the rest of the page
 * down; on wider screens the button is hidden and the table always shows.
 * Pure CSS decides which layout applies, so the server render matches.
 */
export function TableSizes({ tables }: { tables: TableStats[] | null }) {
  const t = useTranslations("databaseCards.stats");
  const locale = useLocale();
  const regionId = useId();
  const [open, setOpen] = useState(false);
  const sorted = useMemo(() => (tables ? sortLargestFirst(tables) : []), [tables]);
  if (tables === null) return <p className={styles.muted}>{t("noTableSizes")}</p>;
  if (tables.length === 0) return <p className={styles.muted}>{t("noTables")}</p>;
  const estimated = tables.some((table) => table.bytesMethod === "remainder");
  return (
    <div className={styles.subsection}>
      <button
        type="button"
        className={`${styles.button} ${styles.phoneDisclosure}`}
        aria-expanded={open}
        aria-controls={regionId}
        data-testid="table-sizes-toggle"
        onClick={() => setOpen((value) => !value)}
      >
        {open ? t("hideTables") : t("showTables", { count: tables.length })}
      </button>
      <div id={regionId} className={`${styles.subsection} ${open ? "" : styles.collapsedOnPhone}`} data-testid="table-sizes-region">
        <div className={styles.tableWrap}>
          <DataTable
            classes={{ table: `${styles.table} ${styles.stackTable}`, num: styles.num }}
            testId="table-sizes"
            caption={t("tablesCaption")}
            rows={sorted}
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
    </div>
  );
}
