// Access > Accounts (issue 26, item 4), in real Chromium on a server of its
// own (accounts are global state): an admin adds an account, the person
// signs in with the temporary password and must choose their own, the admin
// disables them and their open event stream ends and their cookie answers
// 401; the admin enables, resets and ends sessions; viewers get no account
// management. Desktop and phone, five locales, keyboard, 44 px targets,
// every state, axe.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ADMIN, E2E_PORT, VIEWER } from "./support/accounts";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";

test.describe.configure({ mode: "serial" });

const ACCOUNTS = "/settings/access/accounts";
const DATABASE = "/settings/data-logs/database";
// This spec's own ports, next to the main e2e server's.
const PORTS = { desktop: E2E_PORT + 21, phone: E2E_PORT + 22 } as const;
const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;
const TITLES: Record<(typeof LOCALES)[number], string> = { en: "Accounts", "pt-pt": "Contas", "zh-cn": "账号", "zh-hk": "帳戶", "zh-tw": "帳號" };

let server: IsolatedServer;
let phone = false;

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(240_000);
  phone = testInfo.project.name === "phone";
  server = await startIsolatedServer(PORTS[testInfo.project.name as keyof typeof PORTS] ?? E2E_PORT + 23);
});

test.afterAll(async () => {
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    ...(phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 } : { viewport: { width: 1280, height: 800 } }),
    baseURL: server.baseURL,
  });
  return context.newPage();
}

async function signIn(page: Page, account: { email: string; password: string }, locale = "en"): Promise<void> {
  await page.goto(`/${locale}/sign-in`);
  await page.locator("#email").fill(account.email);
  await page.locator("#password").fill(account.password);
  await page.locator("form button[type=submit]").click();
}

/** Signs in and waits for the page sign-in leads to. */
async function signedIn(page: Page, account: { email: string; password: string }): Promise<void> {
  await signIn(page, account);
  await expect(page).toHaveURL(new RegExp(`/en${DATABASE}$`));
}

const row = (page: Page, email: string) => page.locator(`[data-testid=account-row][data-email="${email}"]`);

async function openPanel(page: Page, email: string) {
  await row(page, email).getByTestId("account-manage").click();
  const panel = page.getByTestId("account-panel");
  await expect(panel).toBeVisible();
  return panel;
}

test("an admin adds an account; its temporary password leads to a forced change; disabling ends the person's open event stream and their cookie", async ({ browser }) => {
  // A long flow (three pages, a dozen round trips): sized for two loaded cores, where it takes about 40 s.
  test.setTimeout(180_000);
  const email = `member-${phone ? "phone" : "desktop"}@example.com`;
  const admin = await newPage(browser);
  await signIn(admin, ADMIN);
  await expect(admin).toHaveURL(new RegExp(`/en${DATABASE}$`));
  // The Access group of the navigation leads to Accounts.
  await admin.getByRole("link", { name: "Accounts" }).click();
  await expect(admin).toHaveURL(new RegExp(`/en${ACCOUNTS}$`));
  const card = admin.getByTestId("accounts-card");
  await expect(card.getByTestId("accounts-table")).toBeVisible();

  await card.getByTestId("add-account").click();
  await expect(card.getByTestId("add-account-email")).toBeFocused();
  await card.getByTestId("add-account-email").fill(email);
  await card.getByTestId("add-account-password-generate").click();
  const temporary = await card.getByTestId("add-account-password").inputValue();
  expect(temporary).toMatch(/^[\w]{4}-[\w]{4}-[\w]{4}-[\w]{4}$/);
  await card.getByTestId("add-account-submit").click();
  await expect(card.getByTestId("account-created")).toContainText(email);
  await expect(row(admin, email).getByTestId("account-must-change")).toBeVisible();

  // The person signs in with the temporary password: nothing but the change until it is done.
  const member = await newPage(browser);
  await signIn(member, { email, password: temporary });
  await expect(member).toHaveURL(/\/en\/change-password\?next=/);
  await expect(member.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await member.goto(`/en${DATABASE}`);
  await expect(member).toHaveURL(/\/en\/change-password$/);
  await member.locator("#current-password").fill(temporary);
  await member.locator("#new-password").fill("my-own-chosen-passphrase");
  await member.locator("#repeat-password").fill("my-own-chosen-passphrase");
  await member.getByTestId("change-password-submit").click();
  await expect(member).toHaveURL(new RegExp(`/en${DATABASE}$`));

  // An event stream of the member's, watched from their page.
  await member.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const source = new EventSource("/api/v1/system/events");
        (window as unknown as { watched: EventSource }).watched = source;
        source.onopen = () => resolve();
      }),
  );

  await admin.reload();
  const panel = await openPanel(admin, email);
  await panel.getByTestId("account-disable").click();
  await expect(panel.getByTestId("account-disable-confirm-button")).toBeFocused();
  await panel.getByTestId("account-disable-confirm-button").click();
  await expect(panel.getByTestId("account-disabled")).toContainText(email);
  await expect(row(admin, email)).toHaveAttribute("data-status", "disabled");

  // The stream ended and its reconnection is refused: EventSource gives up (CLOSED) only on a non-200 answer.
  await expect.poll(() => member.evaluate(() => (window as unknown as { watched: EventSource }).watched.readyState)).toBe(2);
  expect((await member.request.get("/api/v1/auth/me")).status()).toBe(401);
  await member.goto(`/en${DATABASE}`);
  await expect(member).toHaveURL(/\/en\/sign-in/);
  await signIn(member, { email, password: "my-own-chosen-passphrase" });
  await expect(member.getByTestId("sign-in-error")).toContainText("disabled");

  // Enable, then reset: the person must change the password again, and their sessions end.
  await panel.getByTestId("account-enable").click();
  await expect(panel.getByTestId("account-enabled")).toBeVisible();
  await signIn(member, { email, password: "my-own-chosen-passphrase" });
  await expect(member).toHaveURL(new RegExp(`/en${DATABASE}$`));
  await admin.reload();
  const again = await openPanel(admin, email);
  await expect(again.getByTestId("account-session")).toHaveCount(1);
  await again.getByTestId("account-reset-password-generate").click();
  await again.getByTestId("account-reset-submit").click();
  await expect(again.getByTestId("account-reset-done")).toContainText("1 session ended");
  expect((await member.request.get("/api/v1/auth/me")).status()).toBe(401);
  await expect(again.getByTestId("account-sessions-empty")).toBeVisible();

  // The last enabled admin: its own row cannot be demoted, and says why.
  await row(admin, email).getByTestId("account-manage").click();
  const own = await openPanel(admin, ADMIN.email);
  await expect(own.getByTestId("account-role")).toBeDisabled();
  await expect(own.getByTestId("account-disable")).toHaveCount(0);
  await expect(own.getByTestId("account-session").first()).toHaveAttribute("data-current", "true");
  await admin.context().close();
  await member.context().close();
});

test("viewers see no account management: no link, no list, 403 from the API", async ({ browser }) => {
  const page = await newPage(browser);
  await signIn(page, VIEWER);
  await expect(page).toHaveURL(new RegExp(`/en${DATABASE}$`));
  await expect(page.getByRole("link", { name: "Accounts" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Password" })).toBeVisible();
  await page.goto(`/en${ACCOUNTS}`);
  await expect(page.getByTestId("accounts-viewer-only")).toBeVisible();
  await expect(page.getByTestId("read-only-notice")).toBeVisible();
  await expect(page.getByTestId("accounts-card")).toHaveCount(0);
  expect((await page.request.get("/api/v1/users")).status()).toBe(403);
  await expectNoSeriousViolations(page);
  await page.screenshot({ path: screenshotPath(`accounts-${phone ? "phone" : "desktop"}-viewer.png`), fullPage: true });
  await page.context().close();
});

test("loading, error, only-you and busy states, each announced", async ({ browser }) => {
  const page = await newPage(browser);
  await signIn(page, ADMIN);
  await expect(page).toHaveURL(new RegExp(`/en${DATABASE}$`));

  // Loading: the list is held until the skeleton has been seen.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/v1/users", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/en${ACCOUNTS}`);
  const card = page.getByTestId("accounts-card");
  await expect(card.getByRole("status", { name: "Loading accounts" })).toBeVisible();
  await expect(card).toHaveAttribute("aria-busy", "true");
  release();
  await expect(card.getByTestId("accounts-table")).toBeVisible();
  await page.unroute("**/api/v1/users");

  // Error: the server's code is shown with a readable sentence.
  await page.route("**/api/v1/users", (route) =>
    route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "maintenance_busy", message: "busy" } }) }),
  );
  await page.reload();
  await expect(card.getByTestId("accounts-error")).toContainText("503 · maintenance_busy");
  await page.unroute("**/api/v1/users");

  // Only you: a server with a single account.
  const me = (await (await page.request.get("/api/v1/users")).json()) as { accounts: { email: string }[]; selfId: string; idleTimeoutMinutes: number | null };
  await page.route("**/api/v1/users", (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ ...me, accounts: me.accounts.filter((a) => a.email === ADMIN.email) }) }),
  );
  await page.reload();
  await expect(card.getByTestId("accounts-only-you")).toBeVisible();
  await page.unroute("**/api/v1/users");

  // Busy: a role change held in flight shows its busy label and cannot be sent twice.
  await page.reload();
  const panel = await openPanel(page, VIEWER.email);
  let releaseRole: () => void = () => {};
  const roleHeld = new Promise<void>((resolve) => (releaseRole = resolve));
  await page.route("**/api/v1/users/*/role", async (route) => {
    await roleHeld;
    await route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: { code: "last_admin", message: "last" } }) });
  });
  await panel.getByTestId("account-role").selectOption("admin");
  await panel.getByTestId("account-role-save").click();
  await expect(panel.getByTestId("account-role-save")).toHaveAttribute("aria-busy", "true");
  await expect(panel.getByTestId("account-role-save")).toBeDisabled();
  releaseRole();
  await expect(panel.getByTestId("account-role-error")).toContainText("last enabled admin");
  await expect(panel.getByTestId("account-role-error")).toBeFocused();
  await page.context().close();
});

test("keyboard only: Tab reaches Manage with a visible focus, Enter opens the panel, every control is 44 px and axe is clean", async ({ browser }) => {
  const page = await newPage(browser);
  await signedIn(page, ADMIN);
  await page.goto(`/en${ACCOUNTS}`);
  const card = page.getByTestId("accounts-card");
  // Refresh is disabled while the list loads: wait until it can take focus.
  await expect(card.getByTestId("accounts-table")).toBeVisible();
  await expect(card.getByTestId("accounts-refresh")).toBeEnabled();
  await card.getByTestId("accounts-refresh").focus();
  await page.keyboard.press("Tab");
  await expect(card.getByTestId("add-account")).toBeFocused();
  // Tab on through the rows (the own row's Manage first) to the viewer's Manage.
  const manage = row(page, VIEWER.email).getByTestId("account-manage");
  for (let presses = 0; presses < 6 && !(await manage.evaluate((el) => el === document.activeElement)); presses++) await page.keyboard.press("Tab");
  await expect(manage).toBeFocused();
  const focus = await manage.evaluate((el) => ({ visible: el.matches(":focus-visible"), outline: getComputedStyle(el).outlineStyle }));
  expect(focus).toEqual({ visible: true, outline: expect.not.stringMatching(/^none$/) });
  await page.keyboard.press("Enter");
  await expect(manage).toHaveAttribute("aria-expanded", "true");
  const panel = page.getByTestId("account-panel");
  await expect(panel).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(panel.getByTestId("account-role")).toBeFocused();
  await expectTouchTargetsIn(card);
  await expectNoSeriousViolations(page);
  await card.getByTestId("add-account").click();
  await expectTouchTargetsIn(card);
  await expectNoSeriousViolations(page, "[data-testid=accounts-card]");
  await page.context().close();
});

// One test per locale and screen: each page load with two axe passes fits a
// test's budget on two loaded cores, where all five in one test did not.
for (const locale of LOCALES) {
  test(`the Accounts screen in ${locale}, with a screenshot`, async ({ browser }) => {
    const page = await newPage(browser);
    await signedIn(page, ADMIN);
    await page.goto(`/${locale}${ACCOUNTS}`);
    const card = page.getByTestId("accounts-card");
    await expect(card.getByRole("heading", { name: TITLES[locale] })).toBeVisible();
    await expect(card.getByTestId("accounts-table")).toBeVisible();
    expect(await page.locator("main").innerText()).not.toMatch(/accounts\.[a-z]/);
    await row(page, VIEWER.email).getByTestId("account-manage").click();
    await expect(page.getByTestId("account-panel")).toBeVisible();
    // Nothing wider than the screen: the page never scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    await expectNoSeriousViolations(page);
    await page.screenshot({ path: screenshotPath(`accounts-${phone ? "phone" : "desktop"}-${locale}.png`), fullPage: true });
    await page.context().close();
  });

  test(`the password page in ${locale}, with a screenshot`, async ({ browser }) => {
    const page = await newPage(browser);
    await signedIn(page, ADMIN);
    await page.goto(`/${locale}/change-password`);
    await expect(page.getByTestId("change-password-form")).toBeVisible();
    expect(await page.locator("main").innerText()).not.toMatch(/changePassword\.[a-z]/);
    await expectTouchTargetsIn(page.locator("main"));
    await expectNoSeriousViolations(page);
    await page.screenshot({ path: screenshotPath(`change-password-${phone ? "phone" : "desktop"}-${locale}.png`), fullPage: true });
    await page.context().close();
  });
}
