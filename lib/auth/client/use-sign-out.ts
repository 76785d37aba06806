"use client";
import { useMutation } from "@tanstack/react-query";
import { isApiError } from "@/lib/query/fetch-json";
import { postLogout } from "./fetchers";

/** Signs out; an answer of 401 (already signed out) counts as success. */
export function useSignOut() {
  return useMutation({
    mutationFn: async () => {
      try {
        await postLogout();
      } catch (error) {
        if (!(isApiError(error) && error.status === 401)) throw error;
      }
    },
  });
}
