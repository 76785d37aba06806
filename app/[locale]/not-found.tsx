import { getTranslations } from "next-intl/server";
import { Link } from "@/lib/i18n/navigation";
import styles from "@/components/shell/status-page.module.css";

export default async function NotFound() {
  const t = await getTranslations("errors");
  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1>{t("notFoundTitle")}</h1>
        <p className={styles.body}>{t("notFoundBody")}</p>
        <Link className={styles.action} href="/settings/data-logs/database">
          {t("backHome")}
        </Link>
      </div>
    </main>
  );
}
