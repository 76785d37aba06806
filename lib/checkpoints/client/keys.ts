// Query keys of the checkpoint storage card, so reads and invalidations agree.
export const checkpointKeys = {
  all: ["checkpoints"] as const,
  storage: () => [...checkpointKeys.all, "storage"] as const,
  thread: (threadId: string) => [...checkpointKeys.all, "thread", threadId] as const,
  titles: (threadIds: readonly string[]) => [...checkpointKeys.all, "titles", [...threadIds].sort().join(",")] as const,
  cleanupSchedule: () => [...checkpointKeys.all, "cleanup-schedule"] as const,
  threadExpiry: () => [...checkpointKeys.all, "thread-expiry"] as const,
};
