import { currentPageUser } from "@/server/auth/page-user";
import { BackupsCard } from "./backups-card";
import { LogViewerCard } from "./log-viewer-card";
import { StatsCard } from "./stats-card";

// Server wrappers mounted by the Database page: the role comes from the
// session on the server, so viewers never receive admin controls. The
// server still checks every mutation on its own.
async function isAdmin(): Promise<boolean> {
  return (await currentPageUser())?.role === "admin";
}

export async function StatsCardMount() {
  return <StatsCard isAdmin={await isAdmin()} />;
}

export async function BackupsCardMount() {
  return <BackupsCard isAdmin={await isAdmin()} />;
}

export function LogViewerMount() {
  return <LogViewerCard />;
}
