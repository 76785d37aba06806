import { route } from "@/server/http/route";
import { expiryRunBody } from "@/lib/checkpoints/maintenance-api";
import { runExpiryNow } from "@/server/checkpoints/schedule/service";

/** Runs a pass now (outside the maintenance window only with outsideWindow: true). */
export const POST = route({
  access: "admin",
  body: expiryRunBody,
  status: 202,
  handler: ({ rt, body, user }) => runExpiryNow(rt, body, user!.id),
});
