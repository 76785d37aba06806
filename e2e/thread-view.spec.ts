// The thread view: from the Agent checkpoints card's largest threads to one
// demo-seeded thread (the e2e server seeds a small version of the demo's
// agent threads), its turns and each checkpoint's retention verdict. Admin
// and viewer, desktop and phone, keyboard only, axe clean.
import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoViolations, expectTouchTargetsIn } from "./support/checks";
import { fullPageScreenshot } from "./support/screenshot-path";

async function openLargestThread(page: Page): Promise<void> {
  const largest = page.getByTestId("checkpoint-largest-threads");
  await expect(largest).toBeVisible();
  // Each thread by its title (its title channel) over a shortened id.
  const first = largest.getByTestId("largest-thread").first();
  await expect(first.getByTestId("thread-title")).not.toHaveText(/Loading|Untitled/);
  await expect(first.getByTestId("thread-name")).toContainText("…");
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
  await expect(view.getByTestId("thread-title")).not.toHaveText(/Loading/);
  const turns = view.getByTestId("thread-turn");
  expect(await turns.count()).toBeGreaterThan(3);
  // Open the newest turn from the keyboard: its checkpoints and verdicts show.
  const last = turns.last();
  const toggle = last.getByRole("button");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expect(last.getByRole("table")).toBeVisible();
  await expect(last.getByTestId("thread-checkpoint-protected").first()).toBeVisible();
  // The newest run's duration leaf: Clean up keeps it, the next run removes it.
  await expect(last.getByTestId("thread-checkpoint-next-run")).toContainText("next run starts");
  await expect(view.getByTestId("thread-next-run")).toContainText("1 checkpoint");
}

for (const who of [
  { name: "admin", account: ADMIN },
  { name: "viewer", account: VIEWER },
] as const) {
  test(`${who.name} opens a demo thread from the largest threads and sees its turns and checkpoint verdicts`, async ({ page }, testInfo) => {
    await signIn(page, who.account);
    await openLargestThread(page);
    await expectThreadView(page);
    await expectNoViolations(page, "[data-testid=thread-view]");
    if (testInfo.project.name === "phone") await expectTouchTargetsIn(page.getByTestId("thread-view"));
    await fullPageScreenshot(page, `thread-view-${testInfo.project.name}-${who.name}-en.png`);
  });
}

test("[#30] a long thread's turns come a page at a time and filter to the reclaimable ones", async ({ page }) => {
  await signIn(page, VIEWER);
  await openLargestThread(page);
  const view = page.getByTestId("thread-view");
  const all = view.getByTestId("thread-filter-all");
  await expect(all).toBeChecked();
  const turns = view.getByTestId("thread-turn");
  await expect(turns.first()).toBeVisible();
  expect(await turns.count()).toBeLessThanOrEqual(20);
  // Only turns with something Clean up removes (or a message saying there are none).
  await view.getByTestId("thread-filter-reclaimable").check();
  await expect(view.getByTestId("thread-turn").or(view.getByTestId("thread-no-turns")).first()).toBeVisible();
  for (const summary of await view.getByTestId("thread-turn").allInnerTexts()) expect(summary).not.toContain(" 0 B reclaimable");
  await all.check();
  await expect(turns.first()).toHaveAttribute("data-turn", "1");
});

test("the thread view in Chinese, and an unknown thread's empty state", async ({ page }, testInfo) => {
  await signIn(page, VIEWER);
  await openLargestThread(page);
  const threadPath = new URL(page.url()).pathname.replace(/^\/en/, "");
  await page.goto(`/zh-hk${threadPath}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("智能體對話");
  await expect(page.getByTestId("thread-heading")).toContainText("對話");
  await expect(page.getByTestId("thread-summary")).toBeVisible();
  await expectNoViolations(page, "[data-testid=thread-view]");
  await fullPageScreenshot(page, `thread-view-${testInfo.project.name}-zh-hk.png`);
  await page.goto("/en/settings/data-logs/database/threads/no-such-thread");
  await expect(page.getByTestId("thread-not-found")).toBeVisible();
  // Next's route announcer is an alert of its own; the view itself raises none.
  await expect(page.getByTestId("thread-view").getByRole("alert")).toHaveCount(0);
});
