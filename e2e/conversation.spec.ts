import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoViolations, expectTouchTargetsIn as expectTouchTargets } from "./support/checks";
import { CONVERSATION_TASK, LIVE_OUTPUT, REMOVED_OUTPUT } from "./support/conversation-fixture";
import { fullPageScreenshot } from "./support/screenshot-path";

// The read-only conversation view: lazy shell output and the 410 notice for
// a compacted message (seeded by scripts/e2e-server.ts).


const shellTool = (page: Page, messageId: string) => page.locator(`[data-testid=shell-tool][data-message-id="${messageId}"]`);

async function openConversation(page: Page, locale = "en"): Promise<void> {
  await page.goto(`/${locale}/tasks`);
  await page.getByTestId("task-link").filter({ hasText: CONVERSATION_TASK.title }).click();
  await expect(page).toHaveURL(new RegExp(`/${locale}/tasks/${CONVERSATION_TASK.id}$`));
  await expect(page.getByTestId("conversation-title")).toHaveText(CONVERSATION_TASK.title);
}

test("[TPR-TX-06] the conversation loads shell output lazily and shows the 410 removal notice", async ({ page }) => {
  await signIn(page, ADMIN);
  // Reached from the settings navigation.
  await page.getByRole("link", { name: "Tasks" }).first().click();
  await expect(page).toHaveURL(/\/en\/tasks$/);
  await openConversation(page);
  await expect(page.getByTestId("conversation-message")).toHaveCount(4);
  await expect(page.getByText(LIVE_OUTPUT.stdout)).toHaveCount(0);

  const live = shellTool(page, LIVE_OUTPUT.messageId);
  await live.getByTestId("toggle-output").click();
  await expect(live.getByTestId("shell-output")).toContainText(LIVE_OUTPUT.stdout);

  const removed = shellTool(page, REMOVED_OUTPUT.messageId);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/messages/${REMOVED_OUTPUT.messageId}/shell-output`)),
    removed.getByTestId("toggle-output").click(),
  ]);
  expect(answer.status()).toBe(410);
  const notice = removed.getByTestId("output-removed");
  await expect(notice).toContainText("Output removed on Mar 4, 2026");
  await expect(notice).toContainText(REMOVED_OUTPUT.command);
  await expect(notice).toContainText("2 fields");
});

test("[TPR-UI-15] a viewer reads the conversation; the notice is localized", async ({ page }) => {
  await signIn(page, VIEWER, "zh-cn");
  await openConversation(page, "zh-cn");
  const removed = shellTool(page, REMOVED_OUTPUT.messageId);
  await removed.getByTestId("toggle-output").click();
  await expect(removed.getByTestId("output-removed")).toContainText("输出已于");
  await expect(removed.getByTestId("output-removed")).toContainText("2026");
});

// One test per locale: several full-page screenshots in one test outlast its timeout on two loaded cores.
for (const locale of ["en", "zh-cn"]) {
  test(`conversation view: axe clean, 44 px targets on a phone, screenshot, ${locale}`, async ({ page }, testInfo) => {
    await signIn(page, ADMIN);
    await openConversation(page, locale);
    await shellTool(page, LIVE_OUTPUT.messageId).getByTestId("toggle-output").click();
    await shellTool(page, REMOVED_OUTPUT.messageId).getByTestId("toggle-output").click();
    await expect(page.getByTestId("shell-output")).toBeVisible();
    await expect(page.getByTestId("output-removed")).toBeVisible();
    await expectNoViolations(page);
    if (testInfo.project.name === "phone") {
      await expectTouchTargets(page.locator("main"));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    }
    await fullPageScreenshot(page, `conversation-${testInfo.project.name}-${locale}.png`);
  });
}

test("task list: axe clean, screenshot", async ({ page }, testInfo) => {
  await signIn(page, ADMIN);
  await page.goto("/en/tasks");
  await expect(page.getByTestId("task-list")).toBeVisible();
  await expectNoViolations(page);
  await fullPageScreenshot(page, `conversation-${testInfo.project.name}-en-tasks.png`);
});
