// Query keys of a task's hold and per-task restore, one factory so reads and invalidations agree.
export const taskCompactionKeys = {
  all: ["task-compaction"] as const,
  hold: (taskId: string) => ["task-compaction", "hold", taskId] as const,
  summary: (taskId: string) => ["task-compaction", "restore-summary", taskId] as const,
};
