import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { TaskList } from "@/components/conversation/task-list";

type Props = { params: Promise<{ locale: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "conversation.tasks" });
  return { title: t("title") };
}

export default function TasksPage() {
  return <TaskList />;
}
