import { changePasswordBodySchema } from "@/lib/accounts/api";
import { changeOwnPassword } from "@/server/auth/password-change";
import { isAppError } from "@/server/errors";
import { clientAddress, throttleAddressKey, throttleNetKey } from "@/server/http/client-address";
import { peerAddressStampInstalled } from "@/server/http/peer-address";
import { errorResponse, route } from "@/server/http/route";

// The signed-in user's own password; the one route (with sign-out) open to a
// user who must replace a temporary password.
export const POST = route({
  access: "self",
  body: changePasswordBodySchema,
  handler: async ({ request, rt, session, body }) => {
    const peer = clientAddress(request, { trusted: rt.signIn.trusted, stamped: peerAddressStampInstalled() });
    const address = throttleAddressKey(peer);
    const net = throttleNetKey(peer);
    try {
      return await changeOwnPassword(rt, { session: session!, ...body, address, net, gate: rt.signIn.gate, memo: rt.signIn.refusals });
    } catch (error) {
      if (!isAppError(error) || error.code !== "too_many_requests") throw error;
      const response = errorResponse(error.code, error.message, error.extra);
      response.headers.set("Retry-After", String(error.extra?.retryAfterSeconds ?? 900));
      return response;
    }
  },
});
