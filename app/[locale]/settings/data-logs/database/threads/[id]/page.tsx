import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ThreadCheckpointsView } from "@/components/checkpoints/thread-checkpoints-view";

type Props = { params: Promise<{ locale: string; id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "checkpoints.thread" });
  return { title: t("title") };
}

// Database > agent thread: members read; the API checks the session itself.
export default async function ThreadCheckpointsPage({ params }: Props) {
  const { id } = await params;
  return <ThreadCheckpointsView threadId={safeDecode(id)} />;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
