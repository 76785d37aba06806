import "server-only";
import type { WorkspaceStore } from "../store";
import { exportTask } from "./export-task";

/** The export as a download: JSON text with an attachment disposition. */
export function exportTaskDocument(store: WorkspaceStore, taskId: string): Response {
  const text = exportTask(store, taskId);
  // Ids are free text: keep the file name to a safe ASCII subset.
  const safe = taskId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100) || "task";
  return new Response(text, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="task-${safe}.json"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
