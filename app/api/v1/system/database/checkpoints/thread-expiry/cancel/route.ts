import { route } from "@/server/http/route";
import { maintenanceCancelBody } from "@/lib/checkpoints/maintenance-api";
import { cancelExpiry } from "@/server/checkpoints/schedule/service";

/** Cancels the named analysis, preparation or pass (a running pass stops at its next thread). */
export const POST = route({
  access: "admin",
  body: maintenanceCancelBody,
  handler: ({ rt, body, user }) => cancelExpiry(rt, body.operationId, user!.id),
});
