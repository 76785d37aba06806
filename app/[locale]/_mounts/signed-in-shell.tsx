import type { ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { AppHeader } from "@/components/shell/app-header";
import { SettingsNav } from "@/components/shell/settings-nav";
import styles from "@/components/shell/shell.module.css";
import { redirect } from "@/lib/i18n/navigation";
import { currentPageUser } from "@/server/auth/page-user";

/**
 * The signed-in page frame: header, navigation and main landmark. The
 * session is checked on the server before anything renders; without one the
 * page redirects to sign-in, and a user who must replace a temporary
 * password is sent to do that first.
 */
export async function SignedInShell({ locale, children, readOnlyNotice }: { locale: string; children: ReactNode; readOnlyNotice: boolean }) {
  const user = await currentPageUser();
  if (!user) return redirect({ href: "/sign-in", locale });
  // A temporary password from an admin: nothing else until the user chose their own.
  if (user.mustChangePassword) return redirect({ href: "/change-password", locale });
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
          <SettingsNav isAdmin={user.role === "admin"} />
        </aside>
        <main id="main" className={styles.main} tabIndex={-1}>
          {readOnlyNotice && user.role === "viewer" && (
            <p className={styles.notice} data-testid="read-only-notice">
              {t("readOnlyNotice")}
            </p>
          )}
          {children}
        </main>
      </div>
    </div>
  );
}
