import { route } from "@/server/http/route";
import { maintenanceGuard } from "@/server/maintenance/guard";
import { createSqliteMaintenanceStore } from "@/server/maintenance/sqlite-store";

// Footprint for the Database page: metadata only, never message bodies.
export const GET = route({
  access: "member",
  unsupportedRead: () => ({ capability: "unsupported" }),
  handler: async ({ rt }) => ({
    capability: "supported",
    ...(await createSqliteMaintenanceStore(rt.handle!).databaseStats()),
    maintenanceBusy: maintenanceGuard().holder()?.kind ?? null,
  }),
});
