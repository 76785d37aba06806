import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import styles from "@/components/database/database-page.module.css";
import { AccountsCard } from "@/components/accounts/accounts-card";
import { PageIntro } from "@/components/ui/page-intro";
import { currentPageUser } from "@/server/auth/page-user";

type Props = { params: Promise<{ locale: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "accounts" });
  return { title: t("title") };
}

// Access > Accounts, for admins. A viewer who opens the address gets a
// sentence and no account data: the page never mounts the card, and the
// API answers 403 on its own.
export default async function AccountsPage({ params }: Props) {
  const { locale } = await params;
  const isAdmin = (await currentPageUser())?.role === "admin";
  const t = await getTranslations({ locale, namespace: "accounts" });
  return (
    <div className={styles.page}>
      <PageIntro title={t("title")} description={t("description")} descriptionClassName={styles.lead} />
      {isAdmin ? (
        <AccountsCard />
      ) : (
        <p className={styles.lead} data-testid="accounts-viewer-only">
          {t("viewerOnly")}
        </p>
      )}
    </div>
  );
}
