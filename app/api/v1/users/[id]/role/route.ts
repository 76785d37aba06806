import { roleBodySchema, userParamsSchema } from "@/lib/accounts/api";
import { changeAccountRole } from "@/server/auth/account-service";
import { route } from "@/server/http/route";

export const PUT = route({
  access: "admin",
  params: userParamsSchema,
  body: roleBodySchema,
  handler: ({ rt, user, params, body }) => changeAccountRole(rt, { actor: user!.id, userId: params.id, role: body.role }),
});
