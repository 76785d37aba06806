// Query keys of the conversation view, one factory so reads and invalidations agree.
export const conversationKeys = {
  all: ["conversation"] as const,
  tasks: (offset: number) => ["conversation", "tasks", offset] as const,
  /** Prefix of every task's conversation. */
  tasksAll: () => ["conversation", "task"] as const,
  task: (taskId: string) => ["conversation", "task", taskId] as const,
  shellOutput: (messageId: string) => ["conversation", "shell-output", messageId] as const,
};
