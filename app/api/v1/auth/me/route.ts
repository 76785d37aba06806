import type { MeResponse } from "@/lib/auth/api";
import { route } from "@/server/http/route";
import { jsonResponse } from "@/server/http/json-response";

// "self": a user who must replace a temporary password still learns who they are.
export const GET = route({
  access: "self",
  handler: ({ user }): Response => {
    const body: MeResponse = { user: user! };
    return jsonResponse(body, { headers: { "Cache-Control": "no-store" } });
  },
});
