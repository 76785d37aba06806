import { clearLockBodySchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { route } from "@/server/http/route";
import { clearUnverifiableLock, lockAuditDetail } from "@/server/maintenance/unverifiable-lock";

// Clears a maintenance lock that names another host (reported by GET stats
// as unverifiableLock): the lock's id and its host typed as confirmation.
export const POST = route({
  access: "admin",
  body: clearLockBodySchema,
  handler: async ({ rt, body, user }) =>
    auditedAsync(rt, { actor: user!.id, kind: "maintenance.lock_cleared", detail: await lockAuditDetail(rt.guard) }, () =>
      clearUnverifiableLock({ guard: rt.guard, id: body.id, confirm: body.confirm, log: rt.log }),
    ),
});
