"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ExpiryAge } from "@/lib/checkpoints/maintenance-api";
import { analyzeThreadExpiry, cancelThreadExpiry, runThreadExpiry } from "./maintenance-fetchers";
import { checkpointKeys } from "./keys";

export type ExpiryCommand =
  | { kind: "analyze"; age: ExpiryAge }
  | { kind: "run"; expectedRevision: number; outsideWindow?: boolean }
  | { kind: "cancel"; operationId: string };

/** Starts an analysis or a pass, or cancels one; the status query then shows it. */
export function useThreadExpiryOperation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (command: ExpiryCommand): Promise<unknown> => {
      if (command.kind === "analyze") return analyzeThreadExpiry(command.age);
      if (command.kind === "run") return runThreadExpiry({ expectedRevision: command.expectedRevision, ...(command.outsideWindow ? { outsideWindow: true } : {}) });
      return cancelThreadExpiry(command.operationId);
    },
    onSettled: () => client.invalidateQueries({ queryKey: checkpointKeys.all }),
  });
}
