"use client";
import { deleteBackup } from "./fetchers";
import { useBackupAction } from "./use-backup-action";

export function useDeleteBackup() {
  return useBackupAction((name: string) => deleteBackup(name));
}
