import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ChangePasswordForm } from "@/components/accounts/change-password-form";
import styles from "@/components/auth/sign-in.module.css";
import { BrandMark } from "@/components/shell/brand-mark";
import { LocaleSwitcher } from "@/components/shell/locale-switcher";
import { safeNextPath } from "@/lib/auth/safe-next";
import { getPathname, redirect } from "@/lib/i18n/navigation";
import { currentPageUser } from "@/server/auth/page-user";

type Props = { params: Promise<{ locale: string }>; searchParams: Promise<{ next?: string | string[] }> };

const HOME = "/settings/data-logs/database";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "accounts.changePassword" });
  return { title: t("title") };
}

// The user's own password, outside the settings frame: a user who must
// replace a temporary password can reach nothing else until they have.
export default async function ChangePasswordPage({ params, searchParams }: Props) {
  const { locale } = await params;
  const user = await currentPageUser();
  if (!user) return redirect({ href: "/sign-in", locale });
  const t = await getTranslations({ locale, namespace: "accounts.changePassword" });
  const tApp = await getTranslations({ locale, namespace: "app" });
  const home = getPathname({ href: HOME, locale });
  const next = safeNextPath((await searchParams).next, home);
  const forced = user.mustChangePassword;
  return (
    <div className={styles.page}>
      <header className={styles.topbar}>
        <span className={styles.brand}>
          <BrandMark />
          {tApp("name")}
        </span>
        <LocaleSwitcher />
      </header>
      <main className={styles.center} id="main">
        <div className={styles.card}>
          <div className={styles.heading}>
            <h1>{forced ? t("forcedTitle") : t("title")}</h1>
            <p className={styles.subtitle}>{forced ? t("forcedLead") : t("lead")}</p>
          </div>
          <ChangePasswordForm forced={forced} email={user.email} next={next} home={home} signInPath={getPathname({ href: "/sign-in", locale })} />
        </div>
      </main>
    </div>
  );
}
