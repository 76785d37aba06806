import { clearedSessionCookie } from "@/server/auth/cookie";
import { revokeSession } from "@/server/auth/sessions";
import { route } from "@/server/http/route";

export const POST = route({
  access: "self",
  handler: async ({ rt, session, sessionToken, secure }) => {
    if (sessionToken) await revokeSession(rt.stores.auth, { token: sessionToken, nowMs: rt.clock.now() });
    // The session's open event streams end with it.
    if (session) rt.streams.endSession(session.id, "session_ended");
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", clearedSessionCookie({ secure }));
    return response;
  },
});
