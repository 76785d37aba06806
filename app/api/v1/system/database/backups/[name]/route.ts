import { z } from "zod";
import { route } from "@/server/http/route";
import { deleteBackup, openBackupStream } from "@/server/maintenance/backups/catalog";

const params = z.strictObject({ name: z.string() });

// Download. The name is checked against the generated pattern before any
// path is built, so traversal attempts answer 400 without touching the disk.
export const GET = route({
  access: "admin",
  params,
  handler: async ({ rt, params }) => {
    const backup = await openBackupStream({ dbFile: rt.handle.file, name: params.name });
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
  handler: async ({ rt, params }) => {
    await deleteBackup({ dbFile: rt.handle.file, name: params.name, guard: rt.guard });
    return { deleted: params.name };
  },
});
