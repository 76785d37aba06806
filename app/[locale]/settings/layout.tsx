import type { ReactNode } from "react";
import { SignedInShell } from "../_mounts/signed-in-shell";

type Props = { children: ReactNode; params: Promise<{ locale: string }> };

// Every settings page needs a session; viewers are told the page is read-only.
export default async function SettingsLayout({ children, params }: Props) {
  const { locale } = await params;
  return (
    <SignedInShell locale={locale} readOnlyNotice>
      {children}
    </SignedInShell>
  );
}
