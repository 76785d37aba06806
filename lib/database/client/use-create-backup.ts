"use client";
import { postBackup } from "./fetchers";
import { useBackupAction } from "./use-backup-action";

export function useCreateBackup() {
  return useBackupAction(() => postBackup());
}
