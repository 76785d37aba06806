import { expect, test } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";

test("an anonymous visit to a settings page goes to sign-in", async ({ page }) => {
  await page.goto(`/en${DATABASE_PATH}`);
  await expect(page).toHaveURL(/\/en\/sign-in$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
});

test("[TPR-UI-16] an admin signs in, reaches the Database page and sees email and role", async ({ page }) => {
  await signIn(page, ADMIN);
  await expect(page.getByRole("heading", { level: 1, name: "Database" })).toBeVisible();
  const user = page.getByTestId("current-user");
  await expect(user).toContainText(ADMIN.email);
  await expect(user).toContainText("Admin");
  await expect(page.getByTestId("read-only-notice")).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Settings navigation" }).getByRole("link", { name: "Database" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  for (const name of ["Storage", "Retention", "Backups", "Logs"]) {
    // Exact: the storage card holds a region of its own ("Storage over time").
    await expect(page.getByRole("region", { name, exact: true })).toBeVisible();
  }
});

test("[TPR-UI-16] a viewer signs in, sees the read-only role and can sign out", async ({ page }) => {
  await signIn(page, VIEWER);
  await expect(page.getByRole("heading", { level: 1, name: "Database" })).toBeVisible();
  await expect(page.getByTestId("current-user")).toContainText("Viewer");
  await expect(page.getByTestId("read-only-notice")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/en\/sign-in$/);
  // The session is revoked on the server: the page is closed again.
  await page.goto(`/en${DATABASE_PATH}`);
  await expect(page).toHaveURL(/\/en\/sign-in$/);
});

test("a wrong password shows a localized error", async ({ page }, testInfo) => {
  // One failure per project keeps the shared client under the throttle limit.
  const [locale, message] =
    testInfo.project.name === "phone" ? ["zh-cn", "电子邮箱或密码不正确。"] : ["en", "The email or password is incorrect."];
  await page.goto(`/${locale}/sign-in`);
  await page.locator("#email").fill(ADMIN.email);
  await page.locator("#password").fill("not-the-password");
  await page.locator("form button[type=submit]").click();
  const alert = page.getByTestId("sign-in-error");
  await expect(alert).toContainText(message);
  await expect(alert).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`/${locale}/sign-in$`));
});

test("a throttled sign-in shows a localized retry time", async ({ page }) => {
  // The 429 itself is covered by the route tests; here only its rendering.
  await page.route("**/api/v1/auth/login", (route) =>
    route.fulfill({
      status: 429,
      headers: { "content-type": "application/json", "retry-after": "600" },
      body: JSON.stringify({ error: { code: "too_many_requests", message: "Too many" } }),
    }),
  );
  await page.goto("/pt-pt/sign-in");
  await page.locator("#email").fill(ADMIN.email);
  await page.locator("#password").fill("whatever-password");
  await page.locator("form button[type=submit]").click();
  await expect(page.getByTestId("sign-in-error")).toContainText("Tente novamente daqui a 10 minutos.");
});
