import createMiddleware from "next-intl/middleware";
import { routing } from "@/lib/i18n/routing";

// Locale negotiation (prefix, Accept-Language, NEXT_LOCALE cookie) for pages
// only: API routes, Next internals and files with an extension never pass here.
export default createMiddleware(routing);

export const config = {
  matcher: ["/((?!api|_next|_vercel|.*\\..*).*)"],
};
