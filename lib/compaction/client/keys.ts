// Query keys of Messages compaction, one factory so reads and invalidations agree.
export const compactionKeys = {
  all: ["compaction"] as const,
  status: () => [...compactionKeys.all, "status"] as const,
};
