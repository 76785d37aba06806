import { expect, test } from "@playwright/test";
import { LOCALES } from "@/lib/i18n/routing";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";
import { fullPageScreenshot } from "./support/screenshot-path";

// Reference screenshots for review (not compared); see support/screenshot-path.ts.
for (const locale of LOCALES) {
  test(`screenshots ${locale}`, async ({ page }, testInfo) => {
    const name = (what: string) => `${testInfo.project.name}-${locale}-${what}.png`;
    await page.goto(`/${locale}/sign-in`);
    await fullPageScreenshot(page, name("sign-in"));
    await signIn(page, ADMIN, locale);
    // Every card has loaded (no skeleton or loading line left) before the picture.
    await expect(page.locator("[data-loading], p[role=status]")).toHaveCount(0);
    await fullPageScreenshot(page, name("database"));
  });
}
