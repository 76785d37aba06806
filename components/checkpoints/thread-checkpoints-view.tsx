"use client";

import { useLocale, useTranslations } from "next-intl";
import type { ThreadCheckpoint, ThreadCheckpointsResponse, ThreadTurn } from "@/lib/checkpoints/api";
import { useThreadCheckpoints } from "@/lib/checkpoints/client/use-thread-checkpoints";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { isApiError } from "@/lib/query/fetch-json";
import { DataTable } from "@/components/ui/data-table";
import { PageIntro } from "@/components/ui/page-intro";
import styles from "./thread-checkpoints.module.css";

const DATABASE_PATH = "/settings/data-logs/database";

function Verdict({ checkpoint }: { checkpoint: ThreadCheckpoint }) {
  const t = useTranslations("checkpoints.thread");
  const v = checkpoint.verdict;
  if (v.status === "reclaimable") {
    return <span>{t.rich("reclaimableLine", { form: t(`form.${v.form}`), strong: (chunks) => <strong className={styles.reclaimable}>{chunks}</strong> })}</span>;
  }
  const reasons = v.reasons.map((r) => t(`reason.${r}`)).join(t("reasonSeparator"));
  return <span>{t.rich("protectedLine", { reasons, strong: (chunks) => <strong className={styles.protected}>{chunks}</strong> })}</span>;
}

function TurnSection({ turn }: { turn: ThreadTurn }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  const label = t("tableLabel", { index: turn.index });
  return (
    <li>
      <details className={styles.turn} data-testid="thread-turn">
        <summary className={styles.summary}>
          <span className={styles.turnTitle}>{t("turnTitle", { index: turn.index })}</span>
          <span className={styles.badge}>{turn.kind === "run" ? t("turnRun") : t("turnRewrite")}</span>
          <span className={styles.badge}>{turn.current ? t("turnCurrent") : t("turnAbandoned")}</span>
          <span className={styles.muted}>
            {t("turnSummary", { count: turn.checkpoints.length, size: formatBytes(turn.bytes, locale), reclaimable: formatBytes(turn.reclaimableBytes, locale) })}
          </span>
        </summary>
        <div className={styles.tableWrap} tabIndex={0} role="region" aria-label={label}>
          <DataTable
            classes={styles}
            caption={label}
            labelCells
            rows={turn.checkpoints}
            rowKey={(c) => c.checkpointId}
            rowTestId={(c) => `thread-checkpoint-${c.verdict.status}`}
            columns={[
              { key: "checkpoint", header: t("columns.checkpoint"), className: styles.mono, cell: (c) => c.checkpointId },
              { key: "kind", header: t("columns.kind"), cell: (c) => t(`kind.${c.kind}`) },
              { key: "step", header: t("columns.step"), numeric: true, cell: (c) => (c.step === null ? "" : formatCount(c.step, locale)) },
              { key: "position", header: t("columns.position"), cell: (c) => t(`position.${c.position}`) },
              { key: "size", header: t("columns.size"), numeric: true, cell: (c) => formatBytes(c.bytes + c.writesBytes, locale) },
              { key: "writes", header: t("columns.writes"), numeric: true, cell: (c) => formatCount(c.writes, locale) },
              { key: "retention", header: t("columns.retention"), cell: (c) => <Verdict checkpoint={c} /> },
            ]}
          />
        </div>
      </details>
    </li>
  );
}

function Summary({ data }: { data: ThreadCheckpointsResponse }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  return (
    <dl className={styles.facts} data-testid="thread-summary">
      <div className={styles.fact}>
        <dt>{t("checkpoints")}</dt>
        <dd>{formatCount(data.checkpoints, locale)}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("size")}</dt>
        <dd>{formatBytes(data.bytes, locale)}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("turns")}</dt>
        <dd>{formatCount(data.turns.length, locale)}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("reclaimable")}</dt>
        <dd>{t("reclaimableValue", { count: data.reclaimableCheckpoints, size: formatBytes(data.reclaimableBytes, locale) })}</dd>
      </div>
    </dl>
  );
}

/** One agent thread's checkpoints turn by turn, with what retention keeps and why (ids and sizes only). */
export function ThreadCheckpointsView({ threadId }: { threadId: string }) {
  const t = useTranslations("checkpoints.thread");
  const errorText = useErrorMessage("checkpoints");
  const query = useThreadCheckpoints(threadId);
  const notFound = query.isError && isApiError(query.error) && query.error.status === 404;
  return (
    <div className={styles.page} data-testid="thread-view">
      <Link href={DATABASE_PATH} className={styles.back}>
        {t("back")}
      </Link>
      <PageIntro title={t("title")} description={t("description")} descriptionClassName={styles.lead} />
      <p>{t.rich("threadLine", { threadId, id: (chunks) => <span className={styles.threadId}>{chunks}</span> })}</p>
      {query.isPending && <div className={styles.skeleton} role="status" aria-label={t("loading")} />}
      {notFound && (
        <p className={styles.muted} data-testid="thread-not-found">
          {t("notFound")}
        </p>
      )}
      {query.isError && !notFound && (
        <div className={styles.error} role="alert" data-testid="thread-error">
          <p>{t("loadFailed")}</p>
          <p>{errorText(query.error)}</p>
          <button type="button" className={styles.button} onClick={() => query.refetch()}>
            {t("retry")}
          </button>
        </div>
      )}
      {query.data && (
        <>
          <Summary data={query.data} />
          <ol className={styles.turns} aria-label={t("turns")}>
            {query.data.turns.map((turn) => (
              <TurnSection key={turn.index} turn={turn} />
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
