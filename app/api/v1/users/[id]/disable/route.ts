import { userParamsSchema } from "@/lib/accounts/api";
import { disableAccount } from "@/server/auth/account-service";
import { route } from "@/server/http/route";

// Disabling ends every session and open event stream of the user at once.
export const POST = route({
  access: "admin",
  params: userParamsSchema,
  handler: ({ rt, user, params }) => disableAccount(rt, { actor: user!.id, userId: params.id }),
});
