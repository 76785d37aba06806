"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { putTaskHold } from "./fetchers";
import { taskCompactionKeys } from "./keys";

/** Puts the task on hold or takes it off (admins); the answer is the new hold. */
export function useSetTaskHold(taskId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (held: boolean) => putTaskHold({ taskId, held }),
    onSuccess: (hold) => client.setQueryData(taskCompactionKeys.hold(taskId), hold),
    onSettled: () => client.invalidateQueries({ queryKey: taskCompactionKeys.hold(taskId) }),
  });
}
