import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { SignInForm } from "@/components/auth/sign-in-form";
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
  const t = await getTranslations({ locale, namespace: "signIn" });
  return { title: t("title") };
}

export default async function SignInPage({ params, searchParams }: Props) {
  const { locale } = await params;
  if (await currentPageUser()) redirect({ href: HOME, locale });
  const t = await getTranslations({ locale, namespace: "signIn" });
  const tApp = await getTranslations({ locale, namespace: "app" });
  const next = safeNextPath((await searchParams).next, getPathname({ href: HOME, locale }));
  return (
    <div className={styles.page}>
      <header className={styles.topbar}>
        <span className={styles.brand}>
          <BrandMark />
          {tApp("name")}
        </span>
        <LocaleSwitcher />
      </header>
      <main className={styles.center}>
        <div className={styles.card}>
          <div className={styles.heading}>
            <h1>{t("title")}</h1>
            <p className={styles.subtitle}>{t("subtitle")}</p>
          </div>
          <SignInForm next={next} changePasswordPath={getPathname({ href: "/change-password", locale })} />
        </div>
      </main>
    </div>
  );
}
