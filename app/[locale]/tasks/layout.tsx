import type { ReactNode } from "react";
import { MemberShell } from "@/components/shell/member-shell";

type Props = { children: ReactNode; params: Promise<{ locale: string }> };

// Same frame as the settings pages; every member may read conversations.
export default async function TasksLayout({ children, params }: Props) {
  const { locale } = await params;
  return (
    <MemberShell locale={locale} readOnlyNotice={false}>
      {children}
    </MemberShell>
  );
}
