// A maintenance lock left by another host (#26 item 7) on the Database page:
// every member sees why maintenance waits; an admin clears it by typing the
// host. Keyboard only, 44 px targets, axe, desktop and phone, five locales.
// Own isolated server: the lock holds maintenance for the whole database.
import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";

test.describe.configure({ mode: "serial" });

const DATABASE = "/settings/data-logs/database";
const STATS = "/api/v1/system/database/stats";
const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;
// Ports of this spec only (other specs' isolated servers use their own).
const PORTS = { desktop: 3231, phone: 3232 } as const;
const HOST = "old-container-7f3a";

let server: IsolatedServer;

function plantLock(): void {
  fs.writeFileSync(
    `${server.dbFile}.maintenance.lock`,
    JSON.stringify({ id: "far-lock", owner: "server", kind: "vacuum", pid: 1, token: "t", host: HOST, acquiredAt: "2026-11-30T08:00:00.000Z" }),
  );
}

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(240_000);
  server = await startIsolatedServer(PORTS[testInfo.project.name as keyof typeof PORTS] ?? 3233);
});

test.afterAll(async () => {
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

async function signIn(page: Page, account: { email: string; password: string }): Promise<void> {
  await page.goto(`${server.baseURL}/en/sign-in`);
  await page.locator("#email").fill(account.email);
  await page.locator("#password").fill(account.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).toHaveURL(new RegExp(`/en${DATABASE}$`));
}

test("[#26-7] a viewer sees why maintenance waits, and no way to clear the lock", async ({ page }, testInfo) => {
  plantLock();
  await signIn(page, VIEWER);
  const panel = page.getByTestId("unverifiable-lock");
  await expect(panel).toContainText(HOST);
  await expect(panel).toContainText("An admin can clear the lock");
  await expect(panel.getByTestId("unverifiable-lock-open")).toHaveCount(0);
  await expectNoSeriousViolations(page, "[data-testid=stats-card]");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`maintenance-lock-viewer-${testInfo.project.name}.png`) });
});

test("[#26-7] an admin opens the clear form by keyboard in every locale; the button waits for the exact host", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  plantLock();
  await signIn(page, ADMIN);
  for (const locale of LOCALES) {
    await page.goto(`${server.baseURL}/${locale}${DATABASE}`);
    const panel = page.getByTestId("unverifiable-lock");
    await expect(panel).toContainText(HOST);
    const open = panel.getByTestId("unverifiable-lock-open");
    await open.focus();
    await expect(open).toBeFocused();
    await page.keyboard.press("Enter");
    const input = panel.getByTestId("unverifiable-lock-input");
    await expect(input).toBeFocused();
    const confirm = panel.getByTestId("unverifiable-lock-confirm");
    await page.keyboard.type(HOST.slice(0, -1));
    await expect(confirm).toBeDisabled();
    await page.keyboard.type(HOST.slice(-1));
    await expect(confirm).toBeEnabled();
    await expectTouchTargetsIn(panel);
    if (locale === "en") await expectNoSeriousViolations(page, "[data-testid=stats-card]");
    // The focus ring of the next control is visible when tabbed to.
    await page.keyboard.press("Tab");
    await expect(confirm).toBeFocused();
    expect(await confirm.evaluate((el) => el.matches(":focus-visible"))).toBe(true);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`maintenance-lock-admin-${locale}-${testInfo.project.name}.png`) });
  }
});

test("[#26-7] clearing the lock frees maintenance: the panel goes and the stats name no holder", async ({ page }) => {
  plantLock();
  await signIn(page, ADMIN);
  const panel = page.getByTestId("unverifiable-lock");
  await panel.getByTestId("unverifiable-lock-open").click();
  await panel.getByTestId("unverifiable-lock-input").fill(HOST);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/v1/system/database/maintenance-lock/clear")),
    panel.getByTestId("unverifiable-lock-confirm").click(),
  ]);
  expect(response.status()).toBe(200);
  await expect(page.getByTestId("unverifiable-lock")).toHaveCount(0);
  expect(fs.existsSync(`${server.dbFile}.maintenance.lock`)).toBe(false);
  const stats = (await (await page.request.get(`${server.baseURL}${STATS}`)).json()) as { maintenanceBusy: string | null; unverifiableLock: unknown };
  expect(stats).toMatchObject({ maintenanceBusy: null, unverifiableLock: null });
});
