"use client";

import { useTranslations } from "next-intl";
import { Link, usePathname } from "@/lib/i18n/navigation";
import styles from "./shell.module.css";

type Item = { id: "database" | "tasks" | "accounts" | "password"; href: string; adminOnly?: boolean };

// Groups of settings pages. Later settings areas add a group or an item here.
const GROUPS: { id: "dataLogs" | "access"; items: Item[] }[] = [
  {
    id: "dataLogs",
    items: [
      { id: "database", href: "/settings/data-logs/database" },
      // Read-only conversations: where compaction's "output removed" notices show.
      { id: "tasks", href: "/tasks" },
    ],
  },
  {
    id: "access",
    items: [
      // Viewers get no account management at all, not even its link.
      { id: "accounts", href: "/settings/access/accounts", adminOnly: true },
      { id: "password", href: "/change-password" },
    ],
  },
];

export function SettingsNav({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("nav");
  const tShell = useTranslations("shell");
  const pathname = usePathname();
  return (
    <nav className={styles.nav} aria-label={tShell("navigation")}>
      {GROUPS.map((group) => (
        <div key={group.id} className={styles.navGroup}>
          <h2 className={styles.navGroupTitle} id={`nav-${group.id}`}>
            {t(group.id)}
            <span className={styles.navChevron} aria-hidden="true">
              ›
            </span>
          </h2>
          <ul className={styles.navList} aria-labelledby={`nav-${group.id}`}>
            {group.items.filter((item) => isAdmin || !item.adminOnly).map((item) => {
              const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <li key={item.id}>
                  <Link href={item.href} className={styles.navLink} aria-current={current ? "page" : undefined}>
                    {t(item.id)}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
