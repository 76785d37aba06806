"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { startCheckpointOperation } from "./fetchers";
import { checkpointKeys } from "./keys";
import type { CheckpointOperationKind } from "@/lib/checkpoints/api";

/** Queues an analysis or cleanup (202); the status query then shows it running. */
export function useStartCheckpointOperation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: { kind: CheckpointOperationKind; analysisId?: string }) => startCheckpointOperation(request),
    onSettled: () => client.invalidateQueries({ queryKey: checkpointKeys.storage() }),
  });
}
