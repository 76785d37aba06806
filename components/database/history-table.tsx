"use client";

import { useId, useMemo, useState } from "react";
import { useLocale, useTranslations } from "next-intl";
import type { StorageSample } from "@/lib/database/history-api";
import { formatBytes } from "@/lib/i18n/format";
import { DataTable } from "@/components/ui/data-table";
import { Chevron } from "@/components/ui/disclosure";
import disclosure from "@/components/ui/disclosure.module.css";
import { formatDay, formatSignedBytes } from "./history-format";
import cards from "./cards.module.css";
import styles from "./history.module.css";

type Row = { sample: StorageSample; change: number | null };

/** Newest first, each with the change in use since the sample before it. */
export function tableRows(samples: readonly StorageSample[]): Row[] {
  return samples.map((sample, i) => ({ sample, change: i === 0 ? null : sample.usedBytes - samples[i - 1]!.usedBytes })).reverse();
}

/**
 * Every number behind the chart, behind a disclosure button (collapsed at
 * first), for screen readers, keyboards and anyone who wants the figures.
 * On a phone each sample becomes a small labelled card.
 */
export function HistoryTable({ samples, timeZone }: { samples: StorageSample[]; timeZone: string }) {
  const t = useTranslations("storageHistory");
  const locale = useLocale();
  const regionId = useId();
  const [open, setOpen] = useState(false);
  const rows = useMemo(() => tableRows(samples), [samples]);
  const bytes = (value: number) => formatBytes(value, locale);
  return (
    <div className={cards.subsection}>
      <button type="button" className={`${cards.button} ${styles.disclosure}`} aria-expanded={open} aria-controls={regionId} data-testid="history-table-toggle" onClick={() => setOpen((v) => !v)}>
        <span className={`${disclosure.inline} ${styles.disclosureLabel}`}>
          <Chevron />
          {open ? t("hideTable") : t("showTable", { count: samples.length })}
        </span>
      </button>
      <div id={regionId} hidden={!open}>
        {open && (
          <div className={`${cards.tableWrap} ${styles.tableScroll}`} tabIndex={0} role="region" aria-label={t("tableRegion")} data-testid="history-table-region">
            <DataTable
              classes={{ table: `${cards.table} ${cards.stackTable}`, num: cards.num }}
              testId="history-table"
              caption={t("tableCaption")}
              rows={rows}
              rowKey={(row) => String(row.sample.id)}
              rowTestId={() => "history-row"}
              labelCells
              columns={[
                { key: "when", header: t("columns.when"), rowHeader: true, cell: (row) => formatDay(row.sample.atMs, locale, timeZone) },
                { key: "event", header: t("columns.event"), cell: (row) => t(`triggers.${row.sample.trigger}`) },
                { key: "messages", header: t("columns.messages"), numeric: true, cell: (row) => bytes(row.sample.areas.messages) },
                { key: "checkpoints", header: t("columns.checkpoints"), numeric: true, cell: (row) => bytes(row.sample.areas.checkpoints) },
                { key: "other", header: t("columns.other"), numeric: true, cell: (row) => bytes(row.sample.areas.other) },
                { key: "free", header: t("columns.free"), numeric: true, cell: (row) => bytes(row.sample.freeBytes) },
                { key: "total", header: t("columns.total"), numeric: true, cell: (row) => bytes(row.sample.totalBytes) },
                { key: "change", header: t("columns.change"), numeric: true, cell: (row) => (row.change === null ? t("none") : formatSignedBytes(row.change, locale)) },
                { key: "reclaimed", header: t("columns.reclaimed"), numeric: true, cell: (row) => (row.sample.reclaimedBytes === null ? t("none") : bytes(row.sample.reclaimedBytes)) },
              ]}
            />
          </div>
        )}
      </div>
    </div>
  );
}
