import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "@/lib/api/error-codes";
import { applyApiHeaders, applyTransportSecurity } from "@/lib/http/security-headers";
import { jsonResponse } from "./json-response";
import { AppError, isAppError } from "@/server/errors";
import { readSessionCookie, type SessionUser } from "@/server/auth/current-user";
import { resolveSession } from "@/server/auth/sessions";
import type { LiveSession } from "@/server/auth/store";
import { isAllowedHost } from "./allowed-hosts";
import { refuseMutation } from "./request-checks";
import { createLogger } from "@/server/log";
import { openRuntime, type OpenRuntime, type Runtime } from "@/server/runtime";
import { processRuntime } from "@/server/runtime-slot";
import { requireProcessRuntime } from "@/server/startup";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * public: no session needed (login). member: any signed-in user may read;
 * mutations always need an admin unless the route is `self` (logout, the
 * user's own password). A user who must change their password reaches only
 * `self` routes until they have.
 */
export type Access = "public" | "self" | "member" | "admin";

export type RouteContext<P, B, Q = undefined> = {
  request: Request;
  params: P;
  body: B;
  /** The query string parsed with the route's `query` schema (undefined without one). */
  query: Q;
  /** The request text, only for routes declared with `rawBody: true`. */
  rawBody: string | undefined;
  user: SessionUser | null;
  /** The request's live session (null on public routes). */
  session: LiveSession | null;
  /** The session cookie's token the wrapper resolved `session` from (null on public routes without one). */
  sessionToken: string | null;
  /** True when the client reached this server over HTTPS (the cookie's name and flags follow it). */
  secure: boolean;
  /** The process runtime, its database open (the unsupported engine never reaches a handler). */
  rt: OpenRuntime;
  /** Correlates log lines of this request; never sent to clients in errors. */
  requestId: string;
};

type RouteOptions<P extends z.ZodType, B extends z.ZodType, Q extends z.ZodType> = {
  access: Access;
  params?: P;
  body?: B;
  /**
   * The query string's schema (a strict object of strings, coerced where it
   * says so); a parameter given twice is refused like an unknown one.
   */
  query?: Q;
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
   * it the route answers 501. No query may be sent on that path, and no
   * session can be checked there: the answer must hold no data (the
   * capability and empty lists), since only the presence of a session
   * cookie is known. A request without one gets 401 first.
   */
  unsupportedRead?: (rt: Runtime) => unknown;
  /**
   * A POST that only reads (e.g. a history query with a body): members may
   * call it. The origin check still applies.
   */
  readOnly?: boolean;
  /**
   * Whether the request counts as activity for the idle timeout (default
   * true). The event stream does not: an open tab is not a user at work.
   */
  touchesSession?: boolean;
  handler: (ctx: RouteContext<z.infer<P>, z.infer<B>, z.infer<Q>>) => unknown | Promise<unknown>;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function errorResponse(code: ErrorCode, message: string, extra?: Record<string, unknown>): Response {
  return jsonResponse({ ...(extra ?? {}), error: { code, message } }, { status: ERROR_STATUS[code] });
}

function describeZodError(error: z.ZodError, whole = "body"): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : whole}: ${issue.message}`)
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
function withApiHeaders(response: Response, secure: boolean): Response {
  try {
    applyApiHeaders(response.headers);
    applyTransportSecurity(response.headers, secure);
    return response;
  } catch {
    const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
    applyApiHeaders(copy.headers);
    applyTransportSecurity(copy.headers, secure);
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
 * The one wrapper every route handler uses: Host allowlist, session, role,
 * the mutation checks (request-checks.ts), engine capability, zod parsing of params and body, and the mapping of typed
 * errors to HTTP through ERROR_STATUS. Unknown errors become a generic 500
 * with no stack or message from the throw site. Every answer, errors
 * included, leaves with the security headers and Cache-Control: no-store.
 */
export function route<P extends z.ZodType = z.ZodType<Record<string, string>>, B extends z.ZodType = z.ZodType<unknown>, Q extends z.ZodType = z.ZodType<undefined>>(
  options: RouteOptions<P, B, Q>,
) {
  const respond = respondTo(options);
  return async (request: Request, context?: RouteParams): Promise<Response> => {
    const response = await respond(request, context);
    let secure = false;
    try {
      secure = processRuntimeSecure(request);
    } catch {
      // No runtime: no HSTS, the answer is an error anyway.
    }
    return withApiHeaders(response, secure);
  };
}

function processRuntimeSecure(request: Request): boolean {
  return processRuntime()?.signIn.isSecure(request) ?? false;
}

type RouteParams = { params?: Promise<Record<string, string | string[]>> };

/** The query string as one value per name; a name given twice is refused. */
function queryObject(request: Request): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of new URL(request.url).searchParams) {
    if (Object.hasOwn(result, name)) throw new AppError("invalid_request", `${name}: given more than once`);
    result[name] = value;
  }
  return result;
}

function respondTo<P extends z.ZodType, B extends z.ZodType, Q extends z.ZodType>(options: RouteOptions<P, B, Q>) {
  return async (request: Request, context?: RouteParams): Promise<Response> => {
    const requestId = randomUUID();
    const mutation = !SAFE_METHODS.has(request.method);
    let rt: Runtime | undefined;
    try {
      rt = await requireProcessRuntime();
      // Before anything else: a Host outside ALLOWED_HOSTS is a page on
      // another name (DNS rebinding), then the session. Neither the engine's
      // state nor any other header decides whether an anonymous request is
      // answered: only sign-in (public) and metrics (its own token) are.
      if (!isAllowedHost(request.headers.get("host"), rt.signIn.allowedHosts)) {
        return errorResponse("host_not_allowed", "This server does not answer for that host name");
      }
      const secure = rt.signIn.isSecure(request);
      const open = openRuntime(rt);
      const sessionToken = readSessionCookie(request.headers.get("cookie"), secure);
      let user: SessionUser | null = null;
      let session: LiveSession | null = null;
      if (options.access !== "public") {
        if (!sessionToken) return errorResponse("unauthenticated", "Sign in to continue");
        // Unsupported engine: the session cannot be checked; only data-free answers follow.
        if (open) {
          session = await resolveSession(open.stores.auth, {
            token: sessionToken,
            policy: rt.sessionPolicy,
            nowMs: rt.clock.now(),
            touch: options.touchesSession !== false,
          });
          user = session?.user ?? null;
          if (!user) return errorResponse("unauthenticated", "Sign in to continue");
          if (user.mustChangePassword && options.access !== "self") {
            return errorResponse("password_change_required", "Choose a new password before continuing");
          }
          const needsAdmin = options.access === "admin" || (mutation && !options.readOnly && options.access === "member");
          if (needsAdmin && user.role !== "admin") {
            return errorResponse("forbidden", "This action needs the admin role");
          }
        }
      }
      if (mutation) {
        const refusal = refuseMutation(request, { secure });
        if (refusal === "cross_origin") return errorResponse("cross_origin", "Cross-origin requests are not allowed");
        if (refusal) return errorResponse(refusal, "Send the request body as application/json");
      }
      const declared = request.headers.get("content-length");
      const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
      if (declared !== null && Number(declared) > maxBodyBytes) {
        return errorResponse("invalid_request", `Request body exceeds ${maxBodyBytes} bytes`);
      }
      if (open === null) {
        if (!mutation && options.unsupportedRead) return jsonResponse(options.unsupportedRead(rt));
        return errorResponse("unsupported_engine", "This database engine is not supported for this operation");
      }
      const rawParams = (await context?.params) ?? {};
      const paramsSchema = options.params ?? z.record(z.string(), z.union([z.string(), z.array(z.string())]));
      const params = paramsSchema.safeParse(rawParams);
      if (!params.success) return errorResponse("invalid_request", describeZodError(params.error));
      let query: unknown = undefined;
      if (options.query) {
        const parsed = options.query.safeParse(queryObject(request));
        if (!parsed.success) return errorResponse("invalid_request", describeZodError(parsed.error, "query"));
        query = parsed.data;
      }
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
        query: query as z.infer<Q>,
        rawBody,
        user,
        session,
        sessionToken,
        secure,
        rt: open,
        requestId,
      });
      if (result instanceof Response) return result;
      return jsonResponse(result ?? null, { status: options.status ?? 200 });
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
