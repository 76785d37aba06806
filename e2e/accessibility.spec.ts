// axe on every page, desktop and phone: no violation of any impact (minor
// and moderate included), as admin and as viewer. One test per page: a
// page's axe pass can take seconds on two loaded cores, and a test that
// walks every page outlasts its timeout there.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";
import { expectNoViolations } from "./support/checks";
import { CONVERSATION_TASK } from "./support/conversation-fixture";

async function settled(page: Page): Promise<void> {
  await expect(page.locator("[data-loading]")).toHaveCount(0);
}

for (const locale of ["en", "zh-hk"]) {
  test(`sign-in page has no accessibility violations of any impact, ${locale}`, async ({ page }) => {
    await page.goto(`/${locale}/sign-in`);
    await expect(page.locator("form")).toBeVisible();
    await expectNoViolations(page);
  });
}

type Visit = { page: string; adminOnly?: boolean; open(page: Page): Promise<void> };

const VISITS: Visit[] = [
  {
    page: "database",
    async open(page) {
      await settled(page);
      await expect(page.getByTestId("checkpoint-largest-threads")).toBeVisible();
    },
  },
  {
    page: "thread view with an open turn",
    async open(page) {
      const thread = await page.getByTestId("checkpoint-largest-threads").locator("a").first().getAttribute("href");
      await page.goto(thread!);
      await expect(page.getByTestId("thread-summary")).toBeVisible();
      const toggle = page.getByTestId("thread-turn").first().getByRole("button");
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-expanded", "true");
    },
  },
  {
    page: "tasks",
    async open(page) {
      await page.goto("/en/tasks");
      await expect(page.getByTestId("task-link").first()).toBeVisible();
    },
  },
  {
    page: "a task's conversation",
    async open(page) {
      await page.goto(`/en/tasks/${CONVERSATION_TASK.id}`);
      await expect(page.getByTestId("conversation-title")).toBeVisible();
    },
  },
  {
    page: "database in zh-tw",
    async open(page) {
      await page.goto(`/zh-tw${DATABASE_PATH}`);
      await expect(page.getByTestId("checkpoint-largest-threads")).toBeVisible();
      await settled(page);
    },
  },
  {
    page: "change password",
    async open(page) {
      await page.goto("/en/change-password");
      await expect(page.locator("form")).toBeVisible();
    },
  },
  {
    page: "accounts",
    adminOnly: true,
    async open(page) {
      await page.goto("/en/settings/access/accounts");
      await expect(page.getByTestId("accounts-card")).toBeVisible();
      await settled(page);
    },
  },
  {
    page: "not found",
    async open(page) {
      await page.goto("/en/no-such-page");
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    },
  },
];

for (const who of [
  { name: "admin", account: ADMIN },
  { name: "viewer", account: VIEWER },
] as const) {
  for (const visit of VISITS) {
    if (visit.adminOnly && who.name !== "admin") continue;
    test(`${visit.page} has no accessibility violations of any impact (${who.name})`, async ({ page }) => {
      await signIn(page, who.account);
      await visit.open(page);
      await expectNoViolations(page);
    });
  }
}

test("keyboard focus is visible on the sign-in form", async ({ page }) => {
  await page.goto("/en/sign-in");
  await page.locator("#email").focus();
  const outline = await page.locator("#email").evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
});
