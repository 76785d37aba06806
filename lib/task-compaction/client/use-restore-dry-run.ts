"use client";
import { useMutation } from "@tanstack/react-query";
import { postRestoreDryRun, type RestoreChoice } from "./fetchers";

/** The dry-run report for a choice of backup and hold (changes nothing; admins). */
export function useRestoreDryRun() {
  return useMutation({ mutationFn: (choice: RestoreChoice) => postRestoreDryRun(choice) });
}
