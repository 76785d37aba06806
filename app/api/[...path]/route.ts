// Any /api path no route serves, with any method: the same JSON error body
// and API headers every other API error has (404 not_found), never Next's
// HTML page. Known paths with a method they lack still answer 405 from Next.
import { applyApiHeaders } from "@/lib/http/security-headers";
import { errorResponse } from "@/server/http/route";

export const dynamic = "force-dynamic";

function notFound(request: Request): Response {
  const response = errorResponse("not_found", "No API endpoint at this path");
  applyApiHeaders(response.headers);
  // A HEAD answer carries the status and headers only.
  return request.method === "HEAD" ? new Response(null, { status: response.status, headers: response.headers }) : response;
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
