import { backupNameParamsSchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { deleteBackup, openBackupStream } from "@/server/maintenance/backups/catalog";
import { allPinnedBackupNames } from "@/server/checkpoints/schedule/pinned-backup";

const params = backupNameParamsSchema;

// Download. The name is checked against the generated pattern before any
// path is built, so traversal attempts answer 400 without touching the disk.
export const GET = route({
  access: "admin",
  params,
  handler: async ({ rt, params }) => {
    const backup = await openBackupStream({ dbFile: rt.dbFile, name: params.name });
    return new Response(backup.stream, {
      headers: {
        "Content-Type": "application/vnd.sqlite3",
        "Content-Length": String(backup.sizeBytes),
        "Content-Disposition": `attachment; filename="${backup.name}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  },
});

export const DELETE = route({
  access: "admin",
  params,
  // `?confirm=<name>` is the typed confirmation a pinned backup needs.
  handler: async ({ rt, params, request, user }) => {
    const confirm = new URL(request.url).searchParams.get("confirm");
    await auditedAsync(rt, { actor: user!.id, kind: "backup.deleted", detail: { backupName: params.name } }, async () => deleteBackup({ dbFile: rt.dbFile, name: params.name, guard: rt.guard, pinned: await allPinnedBackupNames(rt.stores), confirm }));
    return { deleted: params.name };
  },
});
