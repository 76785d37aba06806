import { createAccountBodySchema } from "@/lib/accounts/api";
import { createAccount } from "@/server/auth/account-service";
import { listAccounts } from "@/server/auth/account-views";
import { route } from "@/server/http/route";

export const dynamic = "force-dynamic";

// Account management: admins only (viewers get 403, like the audit trail).
export const GET = route({
  access: "admin",
  handler: ({ rt, user }) => listAccounts(rt, { selfId: user!.id }),
});

// A new account with a temporary password the user must replace at first sign-in.
export const POST = route({
  access: "admin",
  body: createAccountBodySchema,
  status: 201,
  handler: ({ rt, user, body }) => createAccount(rt, { actor: user!.id, ...body, gate: rt.signIn.gate }),
});
