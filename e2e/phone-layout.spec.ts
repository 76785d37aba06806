// Phone-only layout checks (the desktop project ignores phone-*.spec.ts).
import { expect, test, type Page } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectTouchTargetsIn } from "./support/checks";

const expectTouchTargets = (page: Page) => expectTouchTargetsIn(page.locator("body"));

test("touch targets are at least 44 px on a phone", async ({ page }) => {
  await page.goto("/en/sign-in");
  await expectTouchTargets(page);
  await signIn(page, ADMIN);
  await expectTouchTargets(page);
  await page.getByTestId("locale-switcher").locator("summary").click();
  await expectTouchTargets(page);
});

test("the layout fits a 360 px wide screen without horizontal scrolling", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await signIn(page, ADMIN, "pt-pt");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
