"use client";
// One agent thread's checkpoints turn by turn: the thread by its title and a
// shortened id, summary tiles, a filter (every turn, or only turns Clean up
// would shrink), and the turns a page at a time, each an expandable section
// with its checkpoints' kind, position, size and retention verdict. The
// verdict cell is where each checkpoint's retention state goes (protected
// and why, reclaimable and how), and whether a run handed it out as its
// handle and until when.
import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useId, useMemo, useState } from "react";
import type { ThreadCheckpoint, ThreadCheckpointsResponse, ThreadTurn } from "@/lib/checkpoints/api";
import { threadExpiredBody } from "@/lib/checkpoints/maintenance-api";
import { useThreadCheckpoints } from "@/lib/checkpoints/client/use-thread-checkpoints";
import { useThreadTitles } from "@/lib/checkpoints/client/use-thread-titles";
import { shortId } from "@/lib/checkpoints/short-id";
import { formatBytes, formatCount, formatDateTime } from "@/lib/i18n/format";
import { Link } from "@/lib/i18n/navigation";
import { useErrorMessage } from "@/lib/i18n/use-error-message";
import { isApiError } from "@/lib/query/fetch-json";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { DataTable } from "@/components/ui/data-table";
import { Disclosure } from "@/components/ui/disclosure";
import { LoadingPlaceholder } from "@/components/ui/loading-placeholder";
import { PageIntro } from "@/components/ui/page-intro";
import styles from "./thread-checkpoints.module.css";

const DATABASE_PATH = "/settings/data-logs/database";

/** Turns per page: a 100-turn thread is five short pages, not one 6,000 px list. */
export const TURNS_PER_PAGE = 20;

export type TurnFilter = "all" | "reclaimable";

/** The turns a filter keeps: "reclaimable" keeps those Clean up would shrink. */
export function filterTurns(turns: readonly ThreadTurn[], filter: TurnFilter): ThreadTurn[] {
  return filter === "all" ? [...turns] : turns.filter((turn) => turn.reclaimableBytes > 0 || turn.checkpoints.some(byCleanup));
}

function byCleanup(c: ThreadCheckpoint): boolean {
  return c.verdict.status === "reclaimable" && c.verdict.form !== "next_run";
}

function Verdict({ checkpoint }: { checkpoint: ThreadCheckpoint }) {
  const t = useTranslations("checkpoints.thread");
  const v = checkpoint.verdict;
  if (v.status === "reclaimable" && v.form === "next_run") {
    return <span>{t.rich("nextRunLine", { strong: (chunks) => <strong className={styles.nextRun}>{chunks}</strong> })}</span>;
  }
  if (v.status === "reclaimable") {
    return <span>{t.rich("reclaimableLine", { form: t(`form.${v.form}`), strong: (chunks) => <strong className={styles.reclaimable}>{chunks}</strong> })}</span>;
  }
  const reasons = v.reasons.map((r) => t(`reason.${r}`)).join(t("reasonSeparator"));
  return <span>{t.rich("protectedLine", { reasons, strong: (chunks) => <strong className={styles.protected}>{chunks}</strong> })}</span>;
}

function verdictTestId(c: ThreadCheckpoint): string {
  if (c.verdict.status === "reclaimable" && c.verdict.form === "next_run") return "thread-checkpoint-next-run";
  return `thread-checkpoint-${c.verdict.status}`;
}

/** Whether a run handed this checkpoint out as its handle, and until when retention keeps it. */
function HandleState({ checkpoint }: { checkpoint: ThreadCheckpoint }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const handle = checkpoint.handle;
  if (!handle) return <span className={styles.muted}>{t("handle.none")}</span>;
  if (handle.expiresAtMs === null)
    return (
      <strong className={styles.protected} data-testid="thread-handle-held">
        {t("handle.heldForever")}
      </strong>
    );
  const until = formatDateTime(handle.expiresAtMs, locale, timeZone);
  if (handle.expired)
    return (
      <span className={styles.muted} data-testid="thread-handle-expired">
        {t("handle.expired", { until })}
      </span>
    );
  return (
    <strong className={styles.protected} data-testid="thread-handle-held">
      {t("handle.heldUntil", { until })}
    </strong>
  );
}

function TurnSection({ turn }: { turn: ThreadTurn }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  const label = t("tableLabel", { index: turn.index });
  const summary = (
    <span className={styles.summary}>
      <span className={styles.turnTitle}>{t("turnTitle", { index: turn.index })}</span>
      <span className={styles.badge}>{turn.kind === "run" ? t("turnRun") : t("turnRewrite")}</span>
      <span className={styles.badge}>{turn.current ? t("turnCurrent") : t("turnAbandoned")}</span>
      <span className={styles.muted}>
        {t("turnSummary", { count: turn.checkpoints.length, size: formatBytes(turn.bytes, locale), reclaimable: formatBytes(turn.reclaimableBytes, locale) })}
      </span>
    </span>
  );
  return (
    <li data-testid="thread-turn" data-turn={turn.index}>
      <Disclosure summary={summary} className={styles.turn} testId={`thread-turn-${turn.index}`}>
        <div className={styles.tableWrap}>
          <DataTable
            classes={styles}
            caption={label}
            stack
            rows={turn.checkpoints}
            rowKey={(c) => c.checkpointId}
            rowTestId={verdictTestId}
            columns={[
              {
                key: "checkpoint",
                header: t("columns.checkpoint"),
                rowHeader: true,
                cell: (c) => (
                  <span className={styles.mono} title={c.checkpointId}>
                    <span aria-hidden="true">{shortId(c.checkpointId)}</span>
                    <span className={styles.visuallyHidden}>{c.checkpointId}</span>
                  </span>
                ),
              },
              { key: "kind", header: t("columns.kind"), cell: (c) => t(`kind.${c.kind}`) },
              { key: "step", header: t("columns.step"), numeric: true, cell: (c) => (c.step === null ? "—" : formatCount(c.step, locale)) },
              { key: "position", header: t("columns.position"), cell: (c) => t(`position.${c.position}`) },
              { key: "size", header: t("columns.size"), numeric: true, cell: (c) => formatBytes(c.bytes + c.writesBytes, locale) },
              { key: "writes", header: t("columns.writes"), numeric: true, cell: (c) => formatCount(c.writes, locale) },
              { key: "retention", header: t("columns.retention"), className: styles.retention, cell: (c) => <Verdict checkpoint={c} /> },
              { key: "handle", header: t("columns.handle"), cell: (c) => <HandleState checkpoint={c} /> },
            ]}
          />
        </div>
      </Disclosure>
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
        <dd data-testid="thread-size">{formatBytes(data.bytes, locale)}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("turns")}</dt>
        <dd>{formatCount(data.turns.length, locale)}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("reclaimable")}</dt>
        <dd data-testid="thread-reclaimable">{t("reclaimableValue", { count: data.reclaimableCheckpoints, size: formatBytes(data.reclaimableBytes, locale) })}</dd>
      </div>
      <div className={styles.fact}>
        <dt>{t("nextRun")}</dt>
        <dd data-testid="thread-next-run">{t("reclaimableValue", { count: data.nextRunCheckpoints, size: formatBytes(data.nextRunBytes, locale) })}</dd>
      </div>
    </dl>
  );
}

function Turns({ data }: { data: ThreadCheckpointsResponse }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  const [filter, setFilter] = useState<TurnFilter>("all");
  const [page, setPage] = useState(0);
  const filterName = useId();
  const shown = useMemo(() => filterTurns(data.turns, filter), [data.turns, filter]);
  const pages = Math.max(1, Math.ceil(shown.length / TURNS_PER_PAGE));
  const current = Math.min(page, pages - 1);
  const slice = shown.slice(current * TURNS_PER_PAGE, (current + 1) * TURNS_PER_PAGE);
  const reclaimableTurns = filterTurns(data.turns, "reclaimable").length;
  const choose = (next: TurnFilter) => {
    setFilter(next);
    setPage(0);
  };
  return (
    <section className={styles.turnsSection} aria-labelledby="thread-turns-title">
      <h2 id="thread-turns-title" className={styles.sectionTitle}>
        {t("turns")}
      </h2>
      <fieldset className={styles.filter} data-testid="thread-filter">
        <legend className={styles.muted}>{t("filterLegend")}</legend>
        {(["all", "reclaimable"] as const).map((value) => (
          <label key={value} className={styles.filterOption}>
            <input type="radio" name={filterName} value={value} checked={filter === value} onChange={() => choose(value)} data-testid={`thread-filter-${value}`} />
            <span>{value === "all" ? t("filterAll", { count: data.turns.length }) : t("filterReclaimable", { count: reclaimableTurns })}</span>
          </label>
        ))}
      </fieldset>
      {slice.length === 0 ? (
        <p className={styles.muted} data-testid="thread-no-turns">
          {t("noReclaimableTurns")}
        </p>
      ) : (
        <ol className={styles.turns} aria-label={t("turnsOnPage", { first: slice[0]!.index, last: slice.at(-1)!.index })}>
          {slice.map((turn) => (
            <TurnSection key={turn.index} turn={turn} />
          ))}
        </ol>
      )}
      {pages > 1 && (
        <nav className={styles.pager} aria-label={t("pagerLabel")} data-testid="thread-pager">
          <button type="button" className={styles.button} onClick={() => setPage(current - 1)} disabled={current === 0} data-testid="thread-page-previous">
            {t("previousPage")}
          </button>
          <span className={styles.muted} aria-live="polite" data-testid="thread-page-status">
            {t("pageStatus", { page: formatCount(current + 1, locale), pages: formatCount(pages, locale), count: shown.length })}
          </span>
          <button type="button" className={styles.button} onClick={() => setPage(current + 1)} disabled={current >= pages - 1} data-testid="thread-page-next">
            {t("nextPage")}
          </button>
        </nav>
      )}
    </section>
  );
}

function ThreadHeading({ threadId }: { threadId: string }) {
  const t = useTranslations("checkpoints.thread");
  const titles = useThreadTitles([threadId]);
  const title = titles.titles.get(threadId);
  return (
    <p className={styles.threadLine} data-testid="thread-heading">
      <span className={styles.threadTitle} data-testid="thread-title">
        {title ?? (titles.isPending ? t("titleLoading") : t("untitled"))}
      </span>
      <span className={styles.threadId} title={threadId}>
        {t("threadIdShort", { id: shortId(threadId) })}
        <span className={styles.visuallyHidden}> {threadId}</span>
      </span>
    </p>
  );
}

/** A thread thread expiry deleted (410 thread_expired): when, and its last activity; nothing to retry. */
function ExpiredNotice({ body }: { body: unknown }) {
  const t = useTranslations("checkpoints.thread");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const parsed = threadExpiredBody.safeParse(body);
  const at = (text: string | null | undefined) => {
    const ms = parseRfc3339(text ?? null);
    return ms === null ? null : formatDateTime(ms, locale, timeZone);
  };
  const expiredAt = parsed.success ? at(parsed.data.expiredAt) : null;
  const lastActivity = parsed.success ? at(parsed.data.lastActivityAt) : null;
  return (
    <div className={styles.notice} role="status" data-testid="thread-expired">
      <p>{expiredAt ? t("expiredAt", { expiredAt }) : t("expired")}</p>
      {lastActivity && <p className={styles.muted}>{t("expiredLastActivity", { lastActivity })}</p>}
    </div>
  );
}

/** One agent thread's checkpoints turn by turn, with what retention keeps and why (ids and sizes only). */
export function ThreadCheckpointsView({ threadId }: { threadId: string }) {
  const t = useTranslations("checkpoints.thread");
  const errorText = useErrorMessage("checkpoints");
  const query = useThreadCheckpoints(threadId);
  const notFound = query.isError && isApiError(query.error) && query.error.status === 404;
  const expired = query.isError && isApiError(query.error) && query.error.code === "thread_expired" ? query.error : null;
  return (
    <div className={styles.page} data-testid="thread-view">
      <Link href={DATABASE_PATH} className={styles.back}>
        {t("back")}
      </Link>
      <PageIntro title={t("title")} description={t("description")} descriptionClassName={styles.lead} />
      {!notFound && <ThreadHeading threadId={threadId} />}
      {query.isPending && <LoadingPlaceholder label={t("loading")} />}
      {notFound && (
        <p className={styles.muted} data-testid="thread-not-found">
          {t("notFound")}
        </p>
      )}
      {expired && <ExpiredNotice body={expired.body} />}
      {query.isError && !notFound && !expired && (
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
          <p className={styles.muted}>{t("reclaimableExplain")}</p>
          <Turns data={query.data} />
        </>
      )}
    </div>
  );
}
