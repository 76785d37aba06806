import { loginBodySchema } from "@/lib/auth/api";
import { isSecureRequest, sessionCookie } from "@/server/auth/cookie";
import { login } from "@/server/auth/login";
import { auditSignIn } from "@/server/audit/sign-in";
import { clientAddress, hashedClientKey, throttleAddressKey } from "@/server/http/client-address";
import { peerAddressStampInstalled } from "@/server/http/peer-address";
import { errorResponse, route } from "@/server/http/route";
import { isAppError } from "@/server/errors";

export const POST = route({
  access: "public",
  body: loginBodySchema,
  handler: async ({ request, body, rt, requestId }) => {
    const nowMs = rt.clock.now();
    const { trusted, gate, logKey } = rt.signIn;
    const address = throttleAddressKey(clientAddress(request, { trusted, stamped: peerAddressStampInstalled() }));
    // Ids, outcomes and a keyed hash of the client: never the email, the address or the password.
    const client = hashedClientKey(address, logKey);
    try {
      const { user, session } = await login(rt.stores.auth, { ...body, address, nowMs, gate });
      const response = Response.json({ user });
      response.headers.append(
        "Set-Cookie",
        sessionCookie({ token: session.token, maxAgeMs: session.expiresAtMs - nowMs, secure: isSecureRequest(request) }),
      );
      response.headers.set("Cache-Control", "no-store");
      rt.log.info({ requestId, event: "login_succeeded", userId: user.id, client }, "sign-in");
      auditSignIn(rt, { email: body.email, userId: user.id, errorCode: null });
      return response;
    } catch (error) {
      if (isAppError(error)) rt.log.warn({ requestId, event: "login_refused", code: error.code, client }, "sign-in refused");
      if (isAppError(error)) auditSignIn(rt, { email: body.email, userId: null, errorCode: error.code });
      if (isAppError(error) && error.code === "too_many_requests") {
        const response = errorResponse(error.code, error.message, error.extra);
        response.headers.set("Retry-After", String(error.extra?.retryAfterSeconds ?? 900));
        return response;
      }
      throw error;
    }
  },
});
