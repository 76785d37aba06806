// Query keys of the checkpoint storage card, so reads and invalidations agree.
export const checkpointKeys = {
  all: ["checkpoints"] as const,
  storage: () => [...checkpointKeys.all, "storage"] as const,
  thread: (threadId: string) => [...checkpointKeys.all, "thread", threadId] as const,
};
