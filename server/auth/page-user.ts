import "server-only";
import { cookies, headers } from "next/headers";
import { openRuntime } from "@/server/runtime";
import { requireProcessRuntime } from "@/server/startup";
import { sessionCookieName, type SessionUser } from "./current-user";
import { resolveSession } from "./sessions";

/** The signed-in user for a page render (server components), from the session cookie; a render counts as activity. */
export async function currentPageUser(): Promise<SessionUser | null> {
  const rt = openRuntime(await requireProcessRuntime());
  // Unsupported engine: no query may be sent, so nobody is signed in.
  if (!rt) return null;
  // The cookie's name follows the scheme the browser used (cookie.ts).
  const request = new Request("http://page.invalid/", { headers: await headers() });
  const token = (await cookies()).get(sessionCookieName(rt.signIn.isSecure(request)))?.value ?? null;
  return (await resolveSession(rt.stores.auth, { token, policy: rt.sessionPolicy, nowMs: rt.clock.now(), touch: true }))?.user ?? null;
}
