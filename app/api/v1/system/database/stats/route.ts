import { route } from "@/server/http/route";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

// Footprint for the Database page: metadata only, never message bodies.
export const GET = route({
  access: "member",
  unsupportedRead: () => ({ capability: "unsupported" }),
  handler: async ({ rt }) => ({
    capability: "supported",
    ...(await createSqliteMaintenanceStore(rt.handle).databaseStats()),
    maintenanceBusy: rt.guard.holder()?.kind ?? null,
  }),
});
