import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "@/lib/api/error-codes";
import { applyApiHeaders } from "@/lib/http/security-headers";
import { AppError, isAppError } from "@/server/errors";
import { readSessionCookie, userForToken, type SessionUser } from "@/server/auth/current-user";
import { createLogger } from "@/server/log";
import { openRuntime, type OpenRuntime, type Runtime } from "@/server/runtime";
import { requireProcessRuntime } from "@/server/startup";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * public: no session needed (login). member: any signed-in user may read;
 * mutations always need an admin unless the route is `self` (logout).
 */
export type Access = "public" | "self" | "member" | "admin";

export type RouteContext<P, B> = {
  request: Request;
  params: P;
  body: B;
  /** The request text, only for routes declared with `rawBody: true`. */
  rawBody: string | undefined;
  user: SessionUser | null;
  /** The process runtime, its database open (the unsupported engine never reaches a handler). */
  rt: OpenRuntime;
  /** Correlates log lines of this request; never sent to clients in errors. */
  requestId: string;
};

type RouteOptions<P extends z.ZodType, B extends z.ZodType> = {
  access: Access;
  params?: P;
  body?: B;
  /**
   * Hand the handler the raw request text instead of JSON.parse'ing it, for
   * bodies whose numbers must stay exact (message metadata, lossless-json).
   */
  rawBody?: boolean;
  /** Body size limit for this route (default MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Status for a plain (non-Response) result. */
  status?: number;
  /**
   * Answer for a GET when DATABASE_URL names an unsupported engine. Without
   * it the route answers 501. No query may be sent on that path.
   */
  unsupportedRead?: (rt: Runtime) => unknown;
  /**
   * A POST that only reads (e.g. a history query with a body): members may
   * call it. The origin check still applies.
   */
  readOnly?: boolean;
  handler: (ctx: RouteContext<z.infer<P>, z.infer<B>>) => unknown | Promise<unknown>;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function errorResponse(code: ErrorCode, message: string, extra?: Record<string, unknown>): Response {
  return Response.json({ ...(extra ?? {}), error: { code, message } }, { status: ERROR_STATUS[code] });
}

function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const allowed = new Set<string>([new URL(request.url).origin]);
  const host = request.headers.get("host");
  if (host) {
    const proto = request.headers.get("x-forwarded-proto") ?? new URL(request.url).protocol.replace(":", "");
    allowed.add(`${proto}://${host}`);
  }
  return allowed.has(origin);
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}

/**
 * Reads the body with a byte counter: a chunked request without a
 * Content-Length is cut off at the limit instead of being buffered whole.
 */
async function readBodyText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new AppError("invalid_request", `Request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks));
}

/**
 * Fatal decoding: bytes that are not UTF-8 are refused instead of silently
 * becoming U+FFFD, which would change byte-exact metadata. A BOM is kept as
 * text, as before (JSON.parse then refuses it).
 */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new AppError("invalid_body", "Request body is not valid UTF-8");
  }
}

/**
 * Every response leaves through here: the security headers and no-store.
 * A Response whose headers are immutable (Response.redirect) is copied.
 */
function withApiHeaders(response: Response): Response {
  try {
    applyApiHeaders(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
    applyApiHeaders(copy.headers);
    return copy;
  }
}

async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const text = await readBodyText(request, limit);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_request", "Request body is not valid JSON");
  }
}

/**
 * The one wrapper every route handler uses: origin check, session, role,
 * engine capability, zod parsing of params and body, and the mapping of typed
 * errors to HTTP through ERROR_STATUS. Unknown errors become a generic 500
 * with no stack or message from the throw site. Every answer, errors
 * included, leaves with the security headers and Cache-Control: no-store.
 */
export function route<P extends z.ZodType = z.ZodType<Record<string, string>>, B extends z.ZodType = z.ZodType<unknown>>(
  options: RouteOptions<P, B>,
) {
  const respond = respondTo(options);
  return async (request: Request, context?: RouteParams): Promise<Response> => withApiHeaders(await respond(request, context));
}

type RouteParams = { params?: Promise<Record<string, string | string[]>> };

function respondTo<P extends z.ZodType, B extends z.ZodType>(options: RouteOptions<P, B>) {
  return async (request: Request, context?: RouteParams): Promise<Response> => {
    const requestId = randomUUID();
    const mutation = !SAFE_METHODS.has(request.method);
    let rt: Runtime | undefined;
    try {
      if (mutation && !sameOrigin(request)) {
        return errorResponse("cross_origin", "Cross-origin requests are not allowed");
      }
      const declared = request.headers.get("content-length");
      const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
      if (declared !== null && Number(declared) > maxBodyBytes) {
        return errorResponse("invalid_request", `Request body exceeds ${maxBodyBytes} bytes`);
      }
      rt = requireProcessRuntime();
      const open = openRuntime(rt);
      if (open === null) {
        if (!mutation && options.unsupportedRead) return Response.json(options.unsupportedRead(rt));
        return errorResponse("unsupported_engine", "This database engine is not supported for this operation");
      }
      let user: SessionUser | null = null;
      if (options.access !== "public") {
        user = userForToken(open.stores.auth, readSessionCookie(request.headers.get("cookie")), rt.clock.now());
        if (!user) return errorResponse("unauthenticated", "Sign in to continue");
        const needsAdmin = options.access === "admin" || (mutation && !options.readOnly && options.access === "member");
        if (needsAdmin && user.role !== "admin") {
          return errorResponse("forbidden", "This action needs the admin role");
        }
      }
      const rawParams = (await context?.params) ?? {};
      const paramsSchema = options.params ?? z.record(z.string(), z.union([z.string(), z.array(z.string())]));
      const params = paramsSchema.safeParse(rawParams);
      if (!params.success) return errorResponse("invalid_request", describeZodError(params.error));
      let body: unknown = undefined;
      const rawBody = options.rawBody ? await readBodyText(request, maxBodyBytes) : undefined;
      if (options.body && !options.rawBody) {
        const parsed = options.body.safeParse(await readJsonBody(request, maxBodyBytes));
        if (!parsed.success) return errorResponse("invalid_request", describeZodError(parsed.error));
        body = parsed.data;
      }
      const result = await options.handler({
        request,
        params: params.data as z.infer<P>,
        body: body as z.infer<B>,
        rawBody,
        user,
        rt: open,
        requestId,
      });
      if (result instanceof Response) return result;
      return Response.json(result ?? null, { status: options.status ?? 200 });
    } catch (error) {
      if (isAppError(error)) return errorResponse(error.code, error.message, error.extra);
      // Error messages can quote stored text (JSON parse errors do): log the
      // name and driver code only.
      const err = error instanceof Error ? { name: error.name, code: (error as { code?: unknown }).code } : { name: "unknown" };
      // Without a runtime (it could not be created) stdout still gets the line.
      (rt?.log ?? createLogger()).error({ requestId, err }, "route failed");
      return errorResponse("internal_error", "Internal error");
    }
  };
}
