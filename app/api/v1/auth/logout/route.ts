import { readSessionCookie } from "@/server/auth/current-user";
import { clearedSessionCookie, isSecureRequest } from "@/server/auth/cookie";
import { revokeSession } from "@/server/auth/sessions";
import { route } from "@/server/http/route";

export const POST = route({
  access: "self",
  handler: ({ request, rt }) => {
    const token = readSessionCookie(request.headers.get("cookie"));
    if (token) revokeSession(rt.stores.auth, { token, nowMs: rt.clock.now() });
    const response = new Response(null, { status: 204 });
    response.headers.append("Set-Cookie", clearedSessionCookie({ secure: isSecureRequest(request) }));
    return response;
  },
});
