import { passwordResetBodySchema, userParamsSchema } from "@/lib/accounts/api";
import { resetAccountPassword } from "@/server/auth/account-service";
import { route } from "@/server/http/route";

// A temporary password: the user's sessions end and they must choose their own at next sign-in.
export const POST = route({
  access: "admin",
  params: userParamsSchema,
  body: passwordResetBodySchema,
  handler: ({ rt, user, params, body }) =>
    resetAccountPassword(rt, { actor: user!.id, userId: params.id, temporaryPassword: body.temporaryPassword, gate: rt.signIn.gate }),
});
