import { route } from "@/server/http/route";
import { collectDatabaseStats } from "@/server/maintenance/stats";

// Footprint for the Database page: metadata only, never message bodies.
export const GET = route({
  access: "member",
  unsupportedRead: () => ({ capability: "unsupported" }),
  handler: async ({ rt }) => ({
    capability: "supported",
    ...(await collectDatabaseStats({ sqlite: rt.handle.sqlite, dbFile: rt.handle.file })),
    maintenanceBusy: rt.guard.holder()?.kind ?? null,
  }),
});
