import type { ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { AppHeader } from "@/components/shell/app-header";
import { SettingsNav } from "@/components/shell/settings-nav";
import styles from "@/components/shell/shell.module.css";
import { redirect } from "@/lib/i18n/navigation";
import { currentPageUser } from "@/server/auth/page-user";

type Props = { children: ReactNode; params: Promise<{ locale: string }> };

// Same shell as the settings pages; every member may read conversations.
export default async function TasksLayout({ children, params }: Props) {
  const { locale } = await params;
  const user = await currentPageUser();
  if (!user) return redirect({ href: "/sign-in", locale });
  const t = await getTranslations({ locale, namespace: "shell" });
  const tApp = await getTranslations({ locale, namespace: "app" });
  return (
    <div className={styles.shell}>
      <a className="skip-link" href="#main">
        {tApp("skipToContent")}
      </a>
      <AppHeader user={user} />
      <div className={styles.body}>
        <aside className={styles.sidebar}>
          <p className={styles.sidebarTitle}>{t("settings")}</p>
          <SettingsNav />
        </aside>
        <main id="main" className={styles.main} tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
