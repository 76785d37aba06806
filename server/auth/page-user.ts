import "server-only";
import { cookies } from "next/headers";
import { openRuntime } from "@/server/runtime";
import { requireProcessRuntime } from "@/server/startup";
import { SESSION_COOKIE, userForToken, type SessionUser } from "./current-user";

/** The signed-in user for a page render (server components), from the session cookie. */
export async function currentPageUser(): Promise<SessionUser | null> {
  const rt = openRuntime(requireProcessRuntime());
  // Unsupported engine: no query may be sent, so nobody is signed in.
  if (!rt) return null;
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  return userForToken(rt.stores.auth, token, rt.clock.now());
}
