"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { conversationKeys } from "@/lib/conversation/client/keys";
import { postRestore, type RestoreChoice } from "./fetchers";
import { taskCompactionKeys } from "./keys";

/** Starts the restore (202 + operation id); the summary and the hold are read again at once. */
export function useStartRestore(taskId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (choice: Omit<RestoreChoice, "taskId">) => postRestore({ taskId, ...choice }),
    onSettled: async () => {
      await client.invalidateQueries({ queryKey: taskCompactionKeys.summary(taskId) });
      await client.invalidateQueries({ queryKey: taskCompactionKeys.hold(taskId) });
      await client.invalidateQueries({ queryKey: conversationKeys.task(taskId) });
    },
  });
}
