import { auditQuerySchema } from "@/lib/audit/api";
import { listAuditEntries } from "@/server/audit/list";
import { auditRetentionDays } from "@/server/audit/retention";
import { AppError } from "@/server/errors";
import { route } from "@/server/http/route";

export const dynamic = "force-dynamic";

// The audit trail, newest first: admins only (it names who did what).
export const GET = route({
  access: "admin",
  handler: ({ request, rt }) => {
    const parsed = auditQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!parsed.success) throw new AppError("invalid_request", "kind must be a known audit kind; cursor a positive integer; limit 1..200");
    const auth = rt.stores.auth;
    const subjects = async (ids: string[]) => {
      const users = await Promise.all(ids.map((id) => auth.findUserById(id)));
      return new Map(users.flatMap((user) => (user ? [[user.id, user.email] as const] : [])));
    };
    return listAuditEntries(rt.stores.audit, parsed.data, auditRetentionDays(process.env), subjects);
  },
});
