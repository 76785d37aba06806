import { expect, test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";
import { screenshotPath } from "./support/screenshot-path";

// Reference screenshots for review (not compared); see support/screenshot-path.ts.
for (const locale of ["en", "zh-cn"]) {
  test(`screenshots ${locale}`, async ({ page }, testInfo) => {
    const name = (what: string) => screenshotPath(`${testInfo.project.name}-${locale}-${what}.png`);
    await page.goto(`/${locale}/sign-in`);
    await page.screenshot({ path: name("sign-in"), fullPage: true });
    await signIn(page, ADMIN, locale);
    // Every card has loaded (no skeleton or loading line left) before the picture.
    await expect(page.locator('[role="status"]:is([aria-label], p)')).toHaveCount(0);
    await page.screenshot({ path: name("database"), fullPage: true });
  });
}
