import { expect, test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";

test("[TPR-UI-15] the locale switcher changes the language and keeps the page", async ({ page }) => {
  await signIn(page, ADMIN);
  await page.getByTestId("locale-switcher").locator("summary").click();
  await page.getByRole("link", { name: "简体中文" }).click();
  await expect(page).toHaveURL(new RegExp(`/zh-cn${DATABASE_PATH}$`));
  await expect(page.getByRole("heading", { level: 1, name: "数据库" })).toBeVisible();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await page.getByTestId("locale-switcher").locator("summary").click();
  await page.getByRole("link", { name: "繁體中文（台灣）" }).click();
  await expect(page).toHaveURL(new RegExp(`/zh-tw${DATABASE_PATH}$`));
  await expect(page.getByRole("heading", { level: 1, name: "資料庫" })).toBeVisible();
});

test("[TPR-UI-15] the sign-in page follows the browser language when no locale is given", async ({ browser }) => {
  const context = await browser.newContext({ locale: "pt-PT" });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page).toHaveURL(/\/pt-pt\/sign-in$/);
  await expect(page.getByRole("heading", { level: 1, name: "Iniciar sessão" })).toBeVisible();
  await context.close();
});

test("locale negotiation leaves the API alone", async ({ request }) => {
  const response = await request.get("/api/v1/auth/me", { headers: { "accept-language": "zh-CN" }, maxRedirects: 0 });
  expect(response.status()).toBe(401);
  expect((await response.json()).error.code).toBe("unauthenticated");
  expect(response.headers()["set-cookie"] ?? "").not.toContain("NEXT_LOCALE");
});

test("the locale menu closes with Escape and returns focus to its toggle", async ({ page }) => {
  await page.goto("/en/sign-in");
  const toggle = page.getByTestId("locale-switcher").locator("summary");
  await toggle.click();
  await expect(page.getByRole("link", { name: "简体中文" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("link", { name: "简体中文" })).toBeHidden();
  await expect(toggle).toBeFocused();
});
