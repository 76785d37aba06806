import { userParamsSchema } from "@/lib/accounts/api";
import { endAccountSessions } from "@/server/auth/account-service";
import { listAccountSessions } from "@/server/auth/account-views";
import { route } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "admin",
  params: userParamsSchema,
  handler: ({ rt, params, session }) => listAccountSessions(rt, { userId: params.id, currentSessionId: session!.id }),
});

// Ends every session of the user (and their open event streams).
export const DELETE = route({
  access: "admin",
  params: userParamsSchema,
  handler: ({ rt, user, params }) => endAccountSessions(rt, { actor: user!.id, userId: params.id }),
});
