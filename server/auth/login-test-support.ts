// Test helper: a sign-in through the real login route as a client at `peer`
// would send it (the socket address arrives as the stamped header,
// peer-address.ts; anything else is what the client writes).
import { POST as loginPost } from "@/app/api/v1/auth/login/route";
import { PEER_ADDRESS_HEADER } from "@/server/http/peer-address";

export const LOGIN_BASE = "http://localhost:3000";

export function signInFrom(body: unknown, peer: string, headers: Record<string, string> = {}): Promise<Response> {
  return loginPost(
    new Request(`${LOGIN_BASE}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: LOGIN_BASE, [PEER_ADDRESS_HEADER]: peer, ...headers },
      body: JSON.stringify(body),
    }),
  );
}
