"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { PutExpiryBody } from "@/lib/checkpoints/maintenance-api";
import { saveThreadExpiry } from "./maintenance-fetchers";
import { checkpointKeys } from "./keys";

/** Saves the thread expiry policy (with the backup or skip choice a first enable or a shorter period needs). */
export function useSaveThreadExpiry() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PutExpiryBody) => saveThreadExpiry(body),
    onSuccess: (status) => client.setQueryData(checkpointKeys.threadExpiry(), status),
    onSettled: () => client.invalidateQueries({ queryKey: checkpointKeys.all }),
  });
}
