import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next";

const HOME = "/en/settings/data-logs/database";
const APP = "https://admin.example.test";

// What Next hands the page: the `next` query value, percent-decoded.
function nextFromQuery(query: string): string | undefined {
  return new URL(`${APP}/en/sign-in?next=${query}`).searchParams.get("next") ?? undefined;
}

describe("safeNextPath (the redirect after sign-in)", () => {
  // The attacks: the browser strips tab and newline, then reads `//host`.
  it.each(["/%09/evil.example/pwned", "/%0A/evil.example/pwned", "/%0D/evil.example/pwned", "/%09%5Cevil.example/pwned", "//evil.example/pwned", "/%5Cevil.example/pwned"])(
    "%s from the query falls back to the default page",
    (query) => {
      const target = safeNextPath(nextFromQuery(query), HOME);
      expect(target).toBe(HOME);
      expect(new URL(target, APP).origin).toBe(APP);
    },
  );

  // Known bypass forms, as the decoded value would arrive.
  it.each([
    "//evil.example",
    "///evil.example",
    "////evil.example/en",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "\t//evil.example",
    " //evil.example",
    "/\t\\evil.example",
    "https://evil.example/en",
    "https:/evil.example/en",
    "https:evil.example",
    "HTTPS://evil.example",
    "//evil.example@app.invalid/en",
    "http://app.invalid/en",
    "https://user:pass@app.invalid/en",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//%65vil.example",
    "/.//evil.example",
    "/en/../../evil.example",
    "/../en/..//evil.example",
    "/evil",
    "/api/v1/auth/me",
    "/_next/static/x.js",
    "/english",
    "evil.example",
    "",
  ])("refuses %j", (next) => {
    const target = safeNextPath(next, HOME);
    expect(target).toBe(HOME);
  });

  it.each([
    ["/en/tasks", "/en/tasks"],
    ["/zh-hk/settings/data-logs/database?tab=backups#list", "/zh-hk/settings/data-logs/database?tab=backups#list"],
    ["/pt-pt", "/pt-pt"],
    ["/en/a/../tasks", "/en/tasks"],
    ["/en/x\ty", "/en/xy"],
  ])("keeps the app path %j as %j", (next, expected) => {
    const target = safeNextPath(next, HOME);
    expect(target).toBe(expected);
    // Whatever comes back, the browser resolves it to the app itself.
    expect(new URL(target, APP).origin).toBe(APP);
  });

  it("takes the first of repeated values and falls back without one", () => {
    expect(safeNextPath(["/en/tasks", "//evil.example"], HOME)).toBe("/en/tasks");
    expect(safeNextPath(["//evil.example", "/en/tasks"], HOME)).toBe(HOME);
    expect(safeNextPath(undefined, HOME)).toBe(HOME);
  });
});
