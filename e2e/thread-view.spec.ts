// The thread view: from the Agent checkpoints card's largest threads to one
// demo-seeded thread (the e2e server seeds a small version of the demo's
// agent threads), its turns and each checkpoint's retention verdict. Admin
// and viewer, desktop and phone, keyboard only, axe clean.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { screenshotPath } from "./support/screenshot-path";

async function openLargestThread(page: Page): Promise<void> {
  const largest = page.getByTestId("checkpoint-largest-threads");
  await expect(largest).toBeVisible();
  const link = largest.getByRole("link").first();
  // Keyboard: the link takes focus visibly and Enter opens the thread.
  await link.focus();
  await expect(link).toBeFocused();
  expect(await link.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe("none");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/settings\/data-logs\/database\/threads\/[^/]+$/);
}

async function expectThreadView(page: Page): Promise<void> {
  const view = page.getByTestId("thread-view");
  await expect(view.getByTestId("thread-summary")).toBeVisible();
  const turns = view.getByTestId("thread-turn");
  expect(await turns.count()).toBeGreaterThan(3);
  // Open the newest turn from the keyboard: its checkpoints and verdicts show.
  const last = turns.last();
  const summary = last.locator("summary");
  await summary.focus();
  await page.keyboard.press("Enter");
  await expect(last.getByRole("region")).toBeVisible();
  await expect(last.getByTestId("thread-checkpoint-protected").first()).toBeVisible();
  // The newest run's duration leaf: reclaimed when the next run starts.
  await expect(last.getByTestId("thread-checkpoint-reclaimable")).toContainText("next run starts");
}

for (const who of [
  { name: "admin", account: ADMIN },
  { name: "viewer", account: VIEWER },
] as const) {
  test(`${who.name} opens a demo thread from the largest threads and sees its turns and checkpoint verdicts`, async ({ page }, testInfo) => {
    await signIn(page, who.account);
    await openLargestThread(page);
    await expectThreadView(page);
    await expectNoSeriousViolations(page, "[data-testid=thread-view]");
    if (testInfo.project.name === "phone") await expectTouchTargetsIn(page.getByTestId("thread-view"));
    await page.screenshot({ path: screenshotPath(`thread-view-${testInfo.project.name}-${who.name}-en.png`), fullPage: true });
  });
}

test("the thread view in Chinese, and an unknown thread's empty state", async ({ page }, testInfo) => {
  await signIn(page, VIEWER);
  await openLargestThread(page);
  const threadPath = new URL(page.url()).pathname.replace(/^\/en/, "");
  await page.goto(`/zh-hk${threadPath}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("智能體對話");
  await expect(page.getByTestId("thread-summary")).toBeVisible();
  await expectNoSeriousViolations(page, "[data-testid=thread-view]");
  await page.screenshot({ path: screenshotPath(`thread-view-${testInfo.project.name}-zh-hk.png`), fullPage: true });
  await page.goto("/en/settings/data-logs/database/threads/no-such-thread");
  await expect(page.getByTestId("thread-not-found")).toBeVisible();
  // Next's route announcer is an alert of its own; the view itself raises none.
  await expect(page.getByTestId("thread-view").getByRole("alert")).toHaveCount(0);
});
