"use client";

import { useLocale, useTranslations } from "next-intl";
import type { TableUsage } from "@/lib/checkpoints/api";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import type { Column } from "@/components/ui/data-table";
import { RegionTable } from "./region-table";

type Row = { key: string; label: string; usage: TableUsage };

/** Rows and payload bytes of the saver's two tables. */
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
    { key: "size", header: t("size"), numeric: true, cell: (row) => formatBytes(row.usage.bytes, locale) },
  ];
  return (
    <RegionTable label={t("tables")} testId="checkpoint-tables" rows={rows} rowKey={(row) => row.key} columns={columns} />
  );
}
