import { test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";

// Reference screenshots for review (not compared): e2e/__screenshots__/.
for (const locale of ["en", "zh-cn"]) {
  test(`screenshots ${locale}`, async ({ page }, testInfo) => {
    const name = (what: string) => `e2e/__screenshots__/${testInfo.project.name}-${locale}-${what}.png`;
    await page.goto(`/${locale}/sign-in`);
    await page.screenshot({ path: name("sign-in"), fullPage: true });
    await signIn(page, ADMIN, locale);
    await page.screenshot({ path: name("database"), fullPage: true });
  });
}
