"use client";
import { deleteBackup } from "./fetchers";
import { useBackupAction } from "./use-backup-action";

export function useDeleteBackup() {
  return useBackupAction((name: string) => deleteBackup(name));
}

/** Deletes the pinned preparation backup with its typed name (the server checks it again). */
export function useDeletePinnedBackup() {
  return useBackupAction((vars: { name: string; confirm: string }) => deleteBackup(vars.name, undefined, { confirm: vars.confirm }));
}
