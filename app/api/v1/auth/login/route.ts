import { loginBodySchema } from "@/lib/auth/api";
import { sessionCookie } from "@/server/auth/cookie";
import { clientLabel } from "@/server/auth/client-label";
import { login } from "@/server/auth/login";
import { auditSignIn } from "@/server/audit/sign-in";
import { clientAddress, hashedClientKey, throttleAddressKey, throttleNetKey } from "@/server/http/client-address";
import { peerAddressStampInstalled } from "@/server/http/peer-address";
import { errorResponse, route } from "@/server/http/route";
import { jsonResponse } from "@/server/http/json-response";
import { isAppError } from "@/server/errors";

export const POST = route({
  access: "public",
  body: loginBodySchema,
  handler: async ({ request, body, rt, requestId, secure }) => {
    const nowMs = rt.clock.now();
    const { trusted, gate, logKey, refusals, decoyHash } = rt.signIn;
    const peer = clientAddress(request, { trusted, stamped: peerAddressStampInstalled() });
    const address = throttleAddressKey(peer);
    const net = throttleNetKey(peer);
    // Ids, outcomes and a keyed hash of the client: never the email, the address or the password.
    const client = hashedClientKey(address, logKey);
    try {
      const label = clientLabel(request.headers.get("user-agent"));
      const { user, session } = await login(rt.stores.auth, { ...body, address, net, nowMs, gate, memo: refusals, decoyHash, client: label });
      const response = jsonResponse({ user });
      response.headers.append(
        "Set-Cookie",
        sessionCookie({ token: session.token, maxAgeMs: session.expiresAtMs - nowMs, secure }),
      );
      response.headers.set("Cache-Control", "no-store");
      rt.log.info({ requestId, event: "login_succeeded", userId: user.id, client }, "sign-in");
      await auditSignIn(rt, { email: body.email, userId: user.id, errorCode: null, client });
      return response;
    } catch (error) {
      // Refusals cost an anonymous client nothing: their lines are rate-limited and their audit entries counted.
      if (isAppError(error)) rt.floodLog.warn("login_refused", { requestId, code: error.code, client }, "sign-in refused");
      if (isAppError(error)) await auditSignIn(rt, { email: body.email, userId: null, errorCode: error.code, client });
      if (isAppError(error) && error.code === "too_many_requests") {
        const retryAfterSeconds = Number(error.extra?.retryAfterSeconds ?? 900);
        await rt.signIn.pace.pause({ retryAfterMs: retryAfterSeconds * 1000 });
        const response = errorResponse(error.code, error.message, error.extra);
        response.headers.set("Retry-After", String(retryAfterSeconds));
        return response;
      }
      throw error;
    }
  },
});
