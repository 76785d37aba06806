import { expect, type Page } from "@playwright/test";

export const DATABASE_PATH = "/settings/data-logs/database";

/** Signs in through the real form and waits for the Database page. */
export async function signIn(page: Page, account: { email: string; password: string }, locale = "en"): Promise<void> {
  await page.goto(`/${locale}/sign-in`);
  await page.locator("#email").fill(account.email);
  await page.locator("#password").fill(account.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).toHaveURL(new RegExp(`/${locale}${DATABASE_PATH}$`));
}
