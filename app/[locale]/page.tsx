import { redirect } from "@/lib/i18n/navigation";

type Props = { params: Promise<{ locale: string }> };

export default async function LocaleHome({ params }: Props) {
  const { locale } = await params;
  redirect({ href: "/settings/data-logs/database", locale });
}
