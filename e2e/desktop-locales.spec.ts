// Text checks that do not depend on the layout run once, in the desktop
// project (the phone project ignores desktop-*.spec.ts).
import { expect, test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";

test("[TPR-UI-15] every locale renders the cards and the conversation without missing keys", async ({ page }) => {
  await signIn(page, ADMIN);
  for (const locale of ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"]) {
    await page.goto(`/${locale}/settings/data-logs/database`);
    await expect(page.getByTestId("stat-file-size")).toHaveText(/\d/);
    await expect(page.getByTestId("backups-table").or(page.getByTestId("backups-empty"))).toBeVisible();
    await expect(page.getByTestId("log-list").or(page.getByTestId("logs-empty"))).toBeVisible();
    const text = await page.locator("main").innerText();
    expect(text).not.toMatch(/(databaseCards|conversation)\.[a-z]/);
    await page.goto(`/${locale}/tasks/e2e-conversation`);
    await expect(page.getByTestId("conversation-message").first()).toBeVisible();
    expect(await page.locator("main").innerText()).not.toMatch(/(databaseCards|conversation)\.[a-z]/);
  }
});
