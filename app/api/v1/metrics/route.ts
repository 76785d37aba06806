import { errorResponse, route } from "@/server/http/route";
import { bearerMatches } from "@/server/metrics/bearer";

// Prometheus scrape endpoint. Off (404) unless METRICS_TOKEN is set; then
// only that bearer token opens it: no session cookie path, so a browser
// session can never read it and a scraper needs no user account. Nothing
// here may be cached, the refusals included.
function uncached(response: Response): Response {
  response.headers.set("cache-control", "no-store");
  return response;
}

export const GET = route({
  access: "public",
  handler: async ({ request, rt }) => {
    const token = rt.metrics.token;
    if (token === null) return uncached(errorResponse("not_found", "Not found"));
    if (!bearerMatches(request.headers.get("authorization"), token)) {
      const refused = uncached(errorResponse("unauthenticated", "A valid metrics bearer token is required"));
      refused.headers.set("www-authenticate", 'Bearer realm="metrics"');
      return refused;
    }
    return uncached(new Response(await rt.metrics.render(), { headers: { "content-type": rt.metrics.contentType } }));
  },
});
