import { expect, test } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";
import { expectNoViolations, expectTouchTargetsIn } from "./support/checks";
import { screenshotPath } from "./support/screenshot-path";

// The Activity card (audit trail) of Data & Logs > Database.

test("admin sees who did what in the Activity card, filters it by kind, in the browser's time zone", async ({ browser, baseURL }, testInfo) => {
  const phone = testInfo.project.name === "phone";
  const context = await browser.newContext({
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : { viewport: { width: 1280, height: 800 } }),
    baseURL,
    timezoneId: "America/New_York",
  });
  const page = await context.newPage();
  await signIn(page, ADMIN);
  // A backup through the API, as an admin: one more entry.
  const created = await page.request.post("/api/v1/system/database/backups", { data: {}, headers: { origin: baseURL! } });
  expect(created.status()).toBe(201);
  await page.reload();

  const card = page.getByTestId("activity-card");
  await expect(card.getByRole("heading", { name: "Activity" })).toBeVisible();
  const list = card.getByTestId("activity-list");
  await expect(list.locator('[data-testid=activity-entry][data-kind="backup.created"]').first()).toContainText(`By ${ADMIN.email}`);
  const signIn1 = list.locator('[data-testid=activity-entry][data-kind="auth.sign_in"]').first();
  await expect(signIn1).toContainText("Sign-in");
  // The browser's zone (New York, December: EST) is named beside each time.
  await expect(signIn1.locator("time")).toContainText(/EST|EDT/);
  await expect(signIn1).toContainText(/ago|now/);

  await card.getByTestId("activity-kind").selectOption("backup.created");
  await expect(list.getByTestId("activity-entry").first()).toHaveAttribute("data-kind", "backup.created");
  await expect(list.locator('[data-kind="auth.sign_in"]')).toHaveCount(0);

  // Keyboard: the list scrolls by keyboard focus; the filter and refresh are reachable by Tab.
  await card.getByTestId("activity-kind").focus();
  await page.keyboard.press("Tab");
  await expect(list).toBeFocused();

  await expectTouchTargetsIn(card);
  await expectNoViolations(page, "[data-testid=activity-card]");
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: screenshotPath(`activity-card-${testInfo.project.name}.png`) });
  await context.close();
});

test("a viewer gets no Activity card and the audit API answers 403", async ({ page, baseURL }) => {
  await signIn(page, VIEWER);
  await expect(page.getByTestId("logs-card")).toBeVisible();
  await expect(page.getByTestId("activity-card")).toHaveCount(0);
  const res = await page.request.get("/api/v1/system/audit", { headers: { origin: baseURL! } });
  expect(res.status()).toBe(403);
});

test("the Activity card is translated in all five locales", async ({ page }) => {
  test.skip(test.info().project.name === "phone", "text only");
  await signIn(page, ADMIN);
  const titles: Record<string, string> = { en: "Activity", "pt-pt": "Atividade", "zh-cn": "活动记录", "zh-hk": "活動紀錄", "zh-tw": "活動紀錄" };
  for (const [locale, title] of Object.entries(titles)) {
    await page.goto(`/${locale}${DATABASE_PATH}`);
    const card = page.getByTestId("activity-card");
    await expect(card.getByRole("heading", { name: title })).toBeVisible();
    await expect(card.getByTestId("activity-list")).toBeVisible();
    expect(await card.innerText()).not.toMatch(/activity\.[a-z]/);
  }
});
