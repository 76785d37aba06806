"use client";

import { useTranslations } from "next-intl";
import { Fragment } from "react";
import { useShellOutput } from "@/lib/conversation/client/use-shell-output";
import { ErrorSummary } from "@/components/database/error-summary";
import cards from "@/components/database/cards.module.css";
import { RemovedNotice } from "./removed-notice";
import styles from "./conversation.module.css";

/** Loads one message's shell output on demand; a 410 becomes the removal notice. */
export function ShellOutputPanel({ messageId }: { messageId: string }) {
  const t = useTranslations("conversation.output");
  const query = useShellOutput(messageId, true);
  if (query.isPending) return <p className={cards.muted} role="status">{t("loading")}</p>;
  if (query.isError) return <ErrorSummary title={t("loadFailed")} message={t("loadFailedBody")} error={query.error} focusOnMount />;
  const state = query.data;
  if (state.kind === "removed") return <RemovedNotice removedAt={state.removedAt} summary={state.summary} />;
  const { output } = state;
  return (
    <div className={cards.subsection} data-testid="shell-output">
      {(["stdout", "stderr"] as const).map(
        (stream) =>
          output[stream] && (
            <Fragment key={stream}>
              <span className={cards.muted}>{t(stream)}</span>
              <pre className={styles.output} tabIndex={0} aria-label={t(stream)}>
                {output[stream]}
              </pre>
            </Fragment>
          ),
      )}
      {!output.stdout && !output.stderr && <p className={cards.muted}>{t("empty")}</p>}
      {output.truncated && <p className={cards.muted}>{t("truncated")}</p>}
    </div>
  );
}
