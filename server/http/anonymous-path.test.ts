// What an anonymous request reaches must cost time linear in what it sends
// (#26 item 2). Timing a request would be a timing assertion; instead every
// regular expression in the code an anonymous request runs is handed to a
// ReDoS checker that proves, per expression, whether its worst case is
// linear, polynomial or exponential in the input. `/\.[^/]*$/` (proxy.ts's
// old extension test) is polynomial of degree 2 there; the benchmark
// (scripts/bench/anonymous-flood.ts) measures what that cost.
import fs from "node:fs";
import path from "node:path";
import { checkSync } from "recheck";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { hasFileExtension, lastSegment } from "./path-shape";

const ROOT = path.resolve(__dirname, "../..");

/** Our files an unauthenticated request runs: the proxy, the route wrapper and its checks, sign-in, its throttle, audit and logging. */
const OUR_FILES = [
  "proxy.ts",
  "lib/http/security-headers.ts",
  "lib/i18n/routing.ts",
  "lib/auth/api.ts",
  "lib/api/error-codes.ts",
  "app/api/v1/auth/login/route.ts",
  "app/api/v1/metrics/route.ts",
  "server/metrics/bearer.ts",
  "server/audit/sign-in.ts",
  "server/audit/record.ts",
  "server/log.ts",
  "server/logs/ring.ts",
  "server/logs/sanitize.ts",
  "server/runtime-slot.ts",
  ...fs
    .readdirSync(path.join(ROOT, "server/http"))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.includes("test-support"))
    .map((f) => `server/http/${f}`),
  ...["current-user.ts", "cookie.ts", "login.ts", "throttle.ts", "users.ts", "sign-in-services.ts", "password/work-gate.ts", "password/rule.ts"].map(
    (f) => `server/auth/${f}`,
  ),
];

/** Dependencies that parse request headers on the anonymous path (Accept-Language for locale negotiation). */
const DEPENDENCY_FILES = [
  ...fs.readdirSync(path.join(ROOT, "node_modules/negotiator/lib")).map((f) => `node_modules/negotiator/lib/${f}`),
  "node_modules/@formatjs/intl-localematcher/index.js",
];

type Found = { file: string; text: string; dynamic: boolean };

function regexesOf(file: string): Found[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) found.push({ file, text: node.getText(source), dynamic: false });
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "RegExp") {
      found.push({ file, text: node.getText(source), dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function complexity(literal: string): string {
  const slash = literal.lastIndexOf("/");
  // g and y change where matching starts, not how one match costs.
  const result = checkSync(literal.slice(1, slash), literal.slice(slash + 1).replace(/[gy]/g, ""));
  if (result.status === "safe") return "linear";
  if (result.status === "vulnerable") {
    const { complexity: c } = result;
    return c.type === "polynomial" ? `polynomial ${c.degree}` : c.type;
  }
  // "unknown": the checker gave up; treat it as unproven, hence not linear.
  return result.status;
}

describe("anonymous path: no super-linear regular expression", () => {
  it("[#26-2] every regular expression our anonymous path runs is linear in its input", () => {
    const all = OUR_FILES.flatMap(regexesOf);
    expect(all.length).toBeGreaterThan(10);
    // A pattern built at run time cannot be checked here: none is allowed on this path.
    expect(all.filter((r) => r.dynamic).map((r) => `${r.file}: ${r.text}`)).toEqual([]);
    const unsafe = all.map((r) => ({ where: `${r.file}: ${r.text}`, cost: complexity(r.text) })).filter((r) => r.cost !== "linear");
    expect(unsafe).toEqual([]);
  });

  it("[#26-2] the header parsers of the locale negotiation are linear too", () => {
    const all = DEPENDENCY_FILES.flatMap(regexesOf).filter((r) => !r.dynamic);
    expect(all.length).toBeGreaterThan(0);
    expect(all.map((r) => ({ where: `${r.file}: ${r.text}`, cost: complexity(r.text) })).filter((r) => r.cost !== "linear")).toEqual([]);
  });

  it("the checker does flag the old extension test (so the first test can fail)", () => {
    expect(complexity(String.raw`/\.[^/]*$/`)).toBe("polynomial 2");
  });
});

describe("path shape", () => {
  it("[#26-2] only the last segment decides whether a path names a file", () => {
    expect(hasFileExtension("/favicon.ico")).toBe(true);
    expect(hasFileExtension("/en/robots.txt")).toBe(true);
    expect(hasFileExtension("/a.b/c")).toBe(false);
    expect(hasFileExtension(`/a${".".repeat(15_000)}/b`)).toBe(false);
    expect(hasFileExtension(`/a/${".".repeat(15_000)}`)).toBe(true);
    expect(hasFileExtension("/")).toBe(false);
    expect(lastSegment("/en/settings")).toBe("settings");
  });
});

describe("proxy.ts", () => {
  it("[#26-7] a page request for a Host outside ALLOWED_HOSTS answers 421 before locale negotiation", async () => {
    const { default: proxy } = await import("@/proxy");
    const { NextRequest } = await import("next/server");
    const refused = proxy(new NextRequest("http://rebind.attacker.example:3000/", { headers: { host: "rebind.attacker.example:3000" } }));
    expect(refused.status).toBe(421);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("host_not_allowed");
    const served = proxy(new NextRequest("http://localhost:3000/", { headers: { host: "localhost:3000" } }));
    expect(served.status).not.toBe(421);
  });

  it("[#26-2] a path of 15,000 dots is a page path (its last segment has none) and is localized", async () => {
    const { default: proxy } = await import("@/proxy");
    const { NextRequest } = await import("next/server");
    const response = proxy(new NextRequest(`http://localhost:3000/a${".".repeat(15_000)}/b`, { headers: { host: "localhost:3000" } }));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toMatch(/\/en\/a\.+\/b$/);
  });
});
