import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { ConversationView } from "@/components/conversation/conversation-view";
import { currentPageUser } from "@/server/auth/page-user";

type Props = { params: Promise<{ locale: string; id: string }> };

// The tab title stays generic: task titles are shown on the page only.
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "conversation" });
  return { title: t("title") };
}

export default async function ConversationPage({ params }: Props) {
  const { id } = await params;
  // The role comes from the session on the server: viewers never receive the controls (the API checks each mutation too).
  const isAdmin = (await currentPageUser())?.role === "admin";
  return <ConversationView taskId={safeDecode(id)} isAdmin={isAdmin} />;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
