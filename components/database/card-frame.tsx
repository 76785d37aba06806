"use client";

import { useTranslations } from "next-intl";
import type { ComponentProps } from "react";
import { BusyButton } from "@/components/ui/busy-button";
import { Card } from "@/components/ui/card";
import styles from "./cards.module.css";

/** A Database page card in this room's styles. */
export function DatabaseCard(props: Omit<ComponentProps<typeof Card>, "classes">) {
  return <Card {...props} classes={{ card: styles.card, header: styles.cardHeader, title: styles.cardTitle }} />;
}

/**
 * Refetches a card's query; busy ("Refreshing…") while a fetch runs over data
 * already shown. On the first load there is nothing to refresh: the button
 * stays "Refresh", disabled, and the card's placeholder says it is loading.
 */
export function RefreshButton({ query, testId }: { query: { isFetching: boolean; isPending: boolean; refetch: () => unknown }; testId?: string }) {
  const t = useTranslations("databaseCards.common");
  return (
    <BusyButton
      className={styles.button}
      busy={query.isFetching && !query.isPending}
      disabled={query.isPending && query.isFetching}
      onClick={() => query.refetch()}
      label={t("refresh")}
      busyLabel={t("refreshing")}
      data-testid={testId}
    />
  );
}
