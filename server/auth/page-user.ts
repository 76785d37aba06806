import "server-only";
import { cookies } from "next/headers";
import { runtime } from "@/server/runtime";
import { SESSION_COOKIE, userForToken, type SessionUser } from "./current-user";
import { createSqliteAuthStore } from "./sqlite-store";

/** The signed-in user for a page render (server components), from the session cookie. */
export async function currentPageUser(): Promise<SessionUser | null> {
  const rt = runtime();
  // Unsupported engine: no query may be sent, so nobody is signed in.
  if (!rt.handle) return null;
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  return userForToken(createSqliteAuthStore(rt.handle.sqlite), token, rt.clock.now());
}
