import { sessionParamsSchema } from "@/lib/accounts/api";
import { endAccountSession } from "@/server/auth/account-service";
import { route } from "@/server/http/route";

export const DELETE = route({
  access: "admin",
  params: sessionParamsSchema,
  handler: ({ rt, user, params }) => endAccountSession(rt, { actor: user!.id, userId: params.id, sessionId: params.sessionId }),
});
