// Query keys of a task's hold and per-task restore, one factory so reads and invalidations agree.
export const taskRetentionKeys = {
  all: ["task-retention"] as const,
  hold: (taskId: string) => ["task-retention", "hold", taskId] as const,
  summary: (taskId: string) => ["task-retention", "restore-summary", taskId] as const,
};
