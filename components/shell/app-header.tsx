import { getTranslations } from "next-intl/server";
import type { AuthUser } from "@/lib/auth/api";
import { Link } from "@/lib/i18n/navigation";
import { BrandMark } from "./brand-mark";
import { LocaleSwitcher } from "./locale-switcher";
import { SignOutButton } from "./sign-out-button";
import styles from "./shell.module.css";

export async function AppHeader({ user }: { user: AuthUser }) {
  const t = await getTranslations("shell");
  const tApp = await getTranslations("app");
  return (
    <header className={styles.header}>
      <Link href="/settings/data-logs/database" className={styles.brand}>
        <BrandMark />
        <span className={styles.brandName}>{tApp("name")}</span>
      </Link>
      <div className={styles.headerActions}>
        <LocaleSwitcher />
        <div className={styles.user} data-testid="current-user" aria-label={t("signedInAs", { email: user.email })} role="group">
          <span className={styles.userEmail} title={user.email}>
            {user.email}
          </span>
          <span className={styles.role} data-role={user.role}>
            {t(`roles.${user.role}`)}
          </span>
        </div>
        <SignOutButton />
      </div>
    </header>
  );
}
