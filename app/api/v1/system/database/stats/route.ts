import { route } from "@/server/http/route";

// Footprint for the Database page: metadata only, never message bodies.
export const GET = route({
  access: "member",
  unsupportedRead: () => ({ capability: "unsupported" }),
  handler: async ({ rt }) => ({
    capability: "supported",
    ...(await rt.stores.maintenance.databaseStats()),
    maintenanceBusy: (await rt.guard.holder())?.kind ?? null,
    unverifiableLock: await rt.guard.unverifiableLock(),
  }),
});
