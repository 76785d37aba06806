// Query keys of Messages compaction, one factory so reads and invalidations agree.
export const retentionKeys = {
  all: ["tool-payload-retention"] as const,
  status: () => [...retentionKeys.all, "status"] as const,
};
