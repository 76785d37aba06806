import type { ReactNode } from "react";
import { SignedInShell } from "../_mounts/signed-in-shell";

type Props = { children: ReactNode; params: Promise<{ locale: string }> };

// Same frame as the settings pages; every member may read conversations.
export default async function TasksLayout({ children, params }: Props) {
  const { locale } = await params;
  return (
    <SignedInShell locale={locale} readOnlyNotice={false}>
      {children}
    </SignedInShell>
  );
}
