// Query keys of the Database page cards, one factory so reads and invalidations agree.
import type { LogLevel } from "@/lib/logs/api";

export const databaseKeys = {
  all: ["database"] as const,
  stats: () => ["database", "stats"] as const,
  backups: () => ["database", "backups"] as const,
  logs: (level: LogLevel) => ["database", "logs", level] as const,
};
