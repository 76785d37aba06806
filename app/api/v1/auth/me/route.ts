import type { MeResponse } from "@/lib/auth/api";
import { route } from "@/server/http/route";

export const GET = route({
  access: "member",
  handler: ({ user }): Response => {
    const body: MeResponse = { user: user! };
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  },
});
