// HTTP hardening against the built app, written as the attacks: malformed
// percent-encoding (pages and API), framing a signed-in page, and reaching
// `npm start` from another interface. The pages still work under the
// Content-Security-Policy with no violation. Desktop project only.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page, type Response } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";
import { CONVERSATION_TASK } from "./support/conversation-fixture";
import { isolatedPort } from "./support/isolated-server";

function expectPageHeaders(response: Response | null): void {
  expect(response).not.toBeNull();
  const headers = response!.headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toMatch(/script-src [^;]*'nonce-[A-Za-z0-9+/=]+'/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
}

/** Collects CSP violations the page reports, from the DOM event and the console. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.exposeFunction("reportCspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation(`${location.pathname}: ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
    });
  });
  return violations;
}

test("[finding 7] a malformed path answers 400 invalid_request as JSON, for API and pages", async ({ request }) => {
  for (const target of ["/api/v1/tasks/%ZZ", "/api/v1/messages/%C3%28/metadata", "/en/%ZZ", "/en/tasks/%E0%A4%A", "/%ZZ"]) {
    const response = await request.get(target, { maxRedirects: 0 });
    expect(response.status(), target).toBe(400);
    expect(response.headers()["content-type"], target).toContain("application/json");
    expect((await response.json()).error.code, target).toBe("invalid_request");
    expect(response.headers()["x-content-type-options"], target).toBe("nosniff");
  }
});

/** Sends one raw HTTP/1.1 GET and resolves with the status code of the answer (its first line). */
function rawStatus(base: URL, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname);
    let head = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      head += chunk;
      const line = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (line) {
        socket.destroy();
        resolve(Number(line[1]));
      }
    });
    socket.on("error", (error) => (head ? undefined : reject(error)));
    socket.on("close", () => reject(new Error(`closed before a status line: ${JSON.stringify(head.slice(0, 40))}`)));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${base.host}\r\nConnection: close\r\n\r\n`);
  });
}

test("[#26-2] a request over 8 KiB of line and headers answers 431 from Node's parser; a long path under the bound is still a page", async ({ request, baseURL }) => {
  const base = new URL(baseURL!);
  expect(await rawStatus(base, `/a${".".repeat(15_000)}/b`)).toBe(431);
  expect(await rawStatus(base, `/a${"x".repeat(15_000)}/b`)).toBe(431);
  const under = await request.get(`/a${".".repeat(6_000)}/b`, { maxRedirects: 0 });
  expect(under.status()).toBe(307);
  const me = await request.get("/api/v1/auth/me", { headers: { "accept-encoding": "gzip" } });
  expect(me.status()).toBe(401);
  // A small answer leaves uncompressed: no zlib stream per refused request.
  expect(me.headers()["content-encoding"]).toBeUndefined();
});

test("[finding 6] pages carry the security headers and run under the CSP without violations", async ({ page }) => {
  const violations = await watchCsp(page);
  expectPageHeaders(await page.goto("/en/sign-in"));
  // The form is a client component: signing in proves the app's scripts ran.
  await signIn(page, ADMIN);
  expectPageHeaders(await page.goto(`/en${DATABASE_PATH}`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expectPageHeaders(await page.goto(`/en/tasks/${CONVERSATION_TASK.id}`));
  await expect(page.getByTestId("conversation-title")).toHaveText(CONVERSATION_TASK.title);
  await expect(page.getByTestId("conversation-message").first()).toBeVisible();
  expect(violations).toEqual([]);
});

test("[finding 6] another site cannot frame the signed-in Database page", async ({ page, baseURL }) => {
  await signIn(page, ADMIN);
  const framed = `${baseURL}/en${DATABASE_PATH}`;
  // The attacker's page on another origin (127.0.0.1 is not localhost's origin).
  const attacker = baseURL!.replace("localhost", "127.0.0.1");
  await page.goto(`${attacker}/api/v1/auth/me`);
  await page.setContent(`<iframe id="victim" src="${framed}" width="800" height="600"></iframe>`);
  const frame = await (await page.locator("#victim").elementHandle())!.contentFrame();
  // frame-ancestors 'none': Chromium replaces the frame with its error page, never the app.
  await expect.poll(() => frame?.url() ?? "").toMatch(/^chrome-error:/);
  expect(await frame!.locator("form, [data-testid]").count()).toBe(0);
});

function externalIPv4(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === "IPv4" && !address.internal) return address.address;
  }
  return null;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

test("[finding 11] npm start listens on loopback only unless HOST says otherwise", async () => {
  test.setTimeout(120_000);
  const external = externalIPv4();
  test.skip(external === null, "this machine has no non-loopback IPv4 address to attack from");
  const port = isolatedPort("hostBinding");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wsr-e2e-host-"));
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `file:${path.join(dir, "workspace.db")}`, PORT: String(port), LOG_LEVEL: "warn" };
  delete env.HOST;
  const server = spawn("npm", ["start", "-s"], { env, stdio: "ignore", detached: true });
  try {
    await expect.poll(() => canConnect("127.0.0.1", port), { timeout: 90_000, intervals: [500] }).toBe(true);
    expect(await canConnect(external!, port)).toBe(false);
  } finally {
    if (server.pid) {
      const group = `-${server.pid}`;
      spawnSync("kill", ["--", group]);
      // The server closes its database after the signal: remove the
      // directory once no process of the group is left writing into it.
      await expect.poll(() => spawnSync("kill", ["-0", "--", group]).status !== 0, { timeout: 30_000, intervals: [100, 250, 500] }).toBe(true);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
