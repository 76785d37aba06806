// Query keys of account management, one factory so reads and invalidations agree.
export const accountKeys = {
  all: ["accounts"] as const,
  list: () => ["accounts", "list"] as const,
  sessions: (userId: string) => ["accounts", "sessions", userId] as const,
};
