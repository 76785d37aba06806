import type { ReactNode } from "react";
import { MemberShell } from "@/components/shell/member-shell";

type Props = { children: ReactNode; params: Promise<{ locale: string }> };

// Every settings page needs a session; viewers are told the page is read-only.
export default async function SettingsLayout({ children, params }: Props) {
  const { locale } = await params;
  return (
    <MemberShell locale={locale} readOnlyNotice>
      {children}
    </MemberShell>
  );
}
