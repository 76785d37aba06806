"use client";

import { useTranslations } from "next-intl";
import { isCatalogKey } from "@/lib/i18n/catalog-key";
import cards from "@/components/database/cards.module.css";

/** A task's state as a badge: translated when the catalog knows it, else as the API sent it. */
export function TaskStateBadge({ state }: { state: string }) {
  const t = useTranslations("conversation.states");
  return <span className={cards.badge}>{isCatalogKey(t, state) ? t(state) : state}</span>;
}
