import { userParamsSchema } from "@/lib/accounts/api";
import { enableAccount } from "@/server/auth/account-service";
import { route } from "@/server/http/route";

export const POST = route({
  access: "admin",
  params: userParamsSchema,
  handler: ({ rt, user, params }) => enableAccount(rt, { actor: user!.id, userId: params.id }),
});
