"use client";

import { useLocale, useTranslations } from "next-intl";
import type { TableUsage } from "@/lib/checkpoints/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { DataTable, type Column } from "@/components/ui/data-table";
import styles from "./checkpoint-storage-card.module.css";

type Row = { key: string; label: string; usage: TableUsage };

/**
 * Rows and payload bytes of the saver's two tables. Payload bytes count what
 * the saver stored (checkpoint, metadata, write values); the Database file
 * card counts the pages the tables occupy with their indexes, so its figures
 * for the same tables are larger: the note says so.
 */
export function TableUsageTable({ tables }: { tables: { checkpoints: TableUsage; writes: TableUsage } }) {
  const t = useTranslations("checkpoints.card");
  const locale = useLocale();
  const rows: Row[] = [
    { key: "checkpoints", label: t("checkpointsTable"), usage: tables.checkpoints },
    { key: "writes", label: t("writesTable"), usage: tables.writes },
  ];
  const columns: Column<Row>[] = [
    { key: "table", header: t("table"), rowHeader: true, cell: (row) => row.label },
    { key: "rows", header: t("rows"), numeric: true, cell: (row) => formatCount(row.usage.rows, locale) },
    { key: "size", header: t("payloadBytes"), numeric: true, cell: (row) => formatBytes(row.usage.bytes, locale) },
  ];
  return (
    <div className={styles.section}>
      <div className={styles.tableWrap}>
        <DataTable classes={styles} caption={t("tables")} testId="checkpoint-tables" stack rows={rows} rowKey={(row) => row.key} rowTestId={(row) => `checkpoint-table-${row.key}`} columns={columns} />
      </div>
      <p className={styles.muted} data-testid="checkpoint-payload-note">
        {t("payloadNote")}
      </p>
    </div>
  );
}
