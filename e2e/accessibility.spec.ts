import { expect, test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoSeriousViolations } from "./support/checks";

test("sign-in page has no serious accessibility violations", async ({ page }) => {
  await page.goto("/en/sign-in");
  await expectNoSeriousViolations(page);
  await page.goto("/zh-hk/sign-in");
  await expectNoSeriousViolations(page);
});

test("Database page has no serious accessibility violations", async ({ page }) => {
  await signIn(page, ADMIN);
  await expectNoSeriousViolations(page);
});

test("keyboard focus is visible on the sign-in form", async ({ page }) => {
  await page.goto("/en/sign-in");
  await page.locator("#email").focus();
  const outline = await page.locator("#email").evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
});
