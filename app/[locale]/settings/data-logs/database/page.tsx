import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import styles from "@/components/database/database-page.module.css";
import { CompactionCard } from "@/components/compaction/compaction-card";
import { SaveBar } from "@/components/settings/save-bar/save-bar";
import { PageIntro } from "@/components/ui/page-intro";
import { BackupsCard } from "@/components/database/backups-card";
import { LogViewerCard } from "@/components/database/log-viewer-card";
import { ActivityCard } from "@/components/audit/activity-card";
import { StatsCard } from "@/components/database/stats-card";
import { CheckpointStorageCard } from "@/components/checkpoints/checkpoint-storage-card";
import { CheckpointScheduleCard } from "@/components/checkpoints/checkpoint-schedule-card";
import { currentPageUser } from "@/server/auth/page-user";

type Props = { params: Promise<{ locale: string }> };

type SectionId = "overview" | "compaction" | "backups" | "logs";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "database" });
  return { title: t("title") };
}

async function Section({ id, children }: { id: SectionId; children?: ReactNode }) {
  const t = await getTranslations("database.sections");
  return (
    <section id={id} className={styles.section} aria-labelledby={`${id}-title`} data-testid={`database-section-${id}`}>
      <div className={styles.sectionHeader}>
        <h2 id={`${id}-title`}>{t(`${id}.title`)}</h2>
        <p className={styles.sectionDescription}>{t(`${id}.description`)}</p>
      </div>
      <div className={styles.cards}>{children}</div>
    </section>
  );
}

// Data & Logs > Database. Each section mounts the cards of its area
// (storage stats, Messages compaction, backups, log viewer). The role comes
// from the session on the server, so viewers never receive admin controls;
// the API still checks every mutation on its own.
export default async function DatabasePage({ params }: Props) {
  const { locale } = await params;
  const isAdmin = (await currentPageUser())?.role === "admin";
  const t = await getTranslations({ locale, namespace: "database" });
  return (
    <div className={styles.page}>
      <PageIntro title={t("title")} description={t("description")} descriptionClassName={styles.lead} />
      <Section id="overview">
        <StatsCard isAdmin={isAdmin} />
      </Section>
      <Section id="compaction">
        <CompactionCard isAdmin={isAdmin} />
        <CheckpointStorageCard isAdmin={isAdmin} />
        <CheckpointScheduleCard isAdmin={isAdmin} />
      </Section>
      <Section id="backups">
        <BackupsCard isAdmin={isAdmin} />
      </Section>
      <Section id="logs">
        {isAdmin && <ActivityCard />}
        <LogViewerCard />
      </Section>
      <SaveBar />
    </div>
  );
}
