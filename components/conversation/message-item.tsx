"use client";

import { useLocale, useTimeZone, useTranslations } from "next-intl";
import { useId, useState } from "react";
import type { ConversationMessage } from "@/lib/conversation/api";
import { formatDateTime } from "@/lib/i18n/format";
import { isCatalogKey } from "@/lib/i18n/catalog-key";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import cards from "@/components/database/cards.module.css";
import { ShellOutputPanel } from "./shell-output-panel";
import styles from "./conversation.module.css";
import { Chevron } from "@/components/ui/disclosure";
import disclosure from "@/components/ui/disclosure.module.css";

const AUTHORS = new Set(["user", "agent", "system"]);

function ShellTool({ message }: { message: ConversationMessage }) {
  const t = useTranslations("conversation.output");
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const tool = message.tool!;
  return (
    <div className={styles.tool} data-testid="shell-tool" data-message-id={message.id}>
      <div className={styles.toolLine}>
        <code className={cards.mono}>{tool.command ?? t("unknownCommand")}</code>
        <span className={cards.badge} data-tone={tool.exitCode === 0 ? "info" : tool.exitCode === null ? undefined : "error"}>
          {tool.exitCode === null ? t("exitUnknown") : t("exit", { code: tool.exitCode })}
        </span>
        {tool.removedAt !== null && (
          <span className={cards.badge} data-tone="warn">
            {t("removedBadge")}
          </span>
        )}
      </div>
      <div>
        <button type="button" className={cards.button} aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)} data-testid="toggle-output">
          <span className={disclosure.inline} data-open={open ? "true" : "false"}>
            <Chevron />
            {open ? t("hide") : t("show")}
          </span>
        </button>
      </div>
      <div id={panelId}>{open && <ShellOutputPanel messageId={message.id} />}</div>
    </div>
  );
}

export function MessageItem({ message }: { message: ConversationMessage }) {
  const t = useTranslations("conversation");
  const locale = useLocale();
  const timeZone = useTimeZone();
  const ms = parseRfc3339(message.createdAt);
  const authorKey = `authors.${message.authorType}`;
  const typeKey = `types.${message.type}`;
  const author = AUTHORS.has(message.authorType) && isCatalogKey(t, authorKey) ? t(authorKey) : message.authorType;
  const isShell = message.type === "tool_execute" && message.tool !== null;
  return (
    <li className={styles.message} data-author={message.authorType} data-testid="conversation-message">
      <div className={styles.messageHead}>
        <span className={styles.author}>{author}</span>
        <span className={cards.badge}>{isCatalogKey(t, typeKey) ? t(typeKey) : message.type}</span>
        {message.tool?.title && <span className={cards.muted}>{message.tool.title}</span>}
        <time className={cards.muted} dateTime={ms === null ? undefined : new Date(ms).toISOString()}>
          {ms === null ? message.createdAt : formatDateTime(ms, locale, timeZone)}
        </time>
      </div>
      {message.content && <p className={styles.content}>{message.content}</p>}
      {isShell && <ShellTool message={message} />}
    </li>
  );
}
