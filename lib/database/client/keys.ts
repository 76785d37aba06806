// Query keys of the Database page cards, one factory so reads and invalidations agree.
import type { LogLevel } from "@/lib/logs/api";

export const databaseKeys = {
  all: ["database"] as const,
  stats: () => ["database", "stats"] as const,
  backups: () => ["database", "backups"] as const,
  /** Every range of the storage history (what a new sample invalidates). */
  historyAll: () => ["database", "history"] as const,
  history: (days: number) => ["database", "history", days] as const,
  logs: (level: LogLevel) => ["database", "logs", level] as const,
};
