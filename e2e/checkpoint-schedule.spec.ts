// The scheduled checkpoint maintenance card (Database page): every locale on
// desktop and phone (no missing keys, axe, 44 px targets, screenshots), the
// admin's flow (daily cleanup switch by keyboard, thread expiry: analyze,
// enable with the skip choice, the consequence confirmation, disable again)
// and the viewer's read-only view.
import { expect, test } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { screenshotPath } from "./support/screenshot-path";

const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;
// The sticky page header would be painted over a tall card's picture.
const UNSTICK = "header { position: static !important; }";

for (const locale of LOCALES) {
  test(`the schedule card renders in ${locale} without missing keys, axe-clean, with 44 px targets`, async ({ page }, testInfo) => {
    await signIn(page, ADMIN);
    await page.goto(`/${locale}/settings/data-logs/database`);
    const card = page.getByTestId("checkpoint-schedule-card");
    await expect(card.getByTestId("thread-expiry")).toBeVisible();
    await expect(card.getByTestId("checkpoint-cleanup-schedule")).toBeVisible();
    await expect(card.getByTestId("expiry-age")).toBeVisible();
    expect(await card.innerText()).not.toMatch(/checkpoints\.schedule|schedule\.[a-z]+\.[a-z]/);
    await card.scrollIntoViewIfNeeded();
    await expectNoSeriousViolations(page, "[data-testid=checkpoint-schedule-card]");
    if (testInfo.project.name === "phone") await expectTouchTargetsIn(card);
    await card.screenshot({ path: screenshotPath(`checkpoint-schedule-${testInfo.project.name}-${locale}.png`), style: UNSTICK });
  });
}

test("admin: the daily cleanup switch works by keyboard; thread expiry is analysed, confirmed with its consequences, then turned off", async ({ page }, testInfo) => {
  // Both projects share one server: only the desktop run changes the policies.
  test.skip(testInfo.project.name !== "desktop", "changes shared policies");
  test.setTimeout(180_000);
  await signIn(page, ADMIN);
  await page.goto("/en/settings/data-logs/database");
  const card = page.getByTestId("checkpoint-schedule-card");
  const cleanupSwitch = card.getByRole("switch", { name: "Clean up daily" });
  await cleanupSwitch.focus();
  await page.keyboard.press("Space");
  await expect(cleanupSwitch).toHaveAttribute("aria-checked", "true");
  await expect(card.getByTestId("checkpoint-cleanup-next")).toContainText("Next run");
  // The status can show the new state before the save settles; a busy switch ignores a press.
  await expect(cleanupSwitch).toHaveAttribute("aria-busy", "false");
  await page.keyboard.press("Space");
  await expect(cleanupSwitch).toHaveAttribute("aria-checked", "false");

  const expiry = card.getByTestId("thread-expiry");
  await expiry.getByRole("spinbutton", { name: "Age" }).fill("6");
  await expiry.getByRole("combobox", { name: "Unit" }).selectOption("months");
  await expiry.getByRole("button", { name: "Analyze" }).click();
  await expect(expiry.getByTestId("expiry-analysis")).toContainText("would be deleted", { timeout: 60_000 });
  await expiry.getByRole("switch", { name: "Expire idle threads" }).click();
  const save = expiry.getByTestId("expiry-save");
  await expect(save).toBeDisabled();
  await expiry.getByRole("radio", { name: /Skip the backup/ }).check();
  await expiry.getByRole("checkbox").check();
  await save.click();
  const confirm = expiry.getByTestId("expiry-confirm");
  await expect(confirm).toContainText("Delete threads idle longer than 6 months?");
  await expect(confirm).toContainText("resuming answers “expired”");
  await expectNoSeriousViolations(page, "[data-testid=checkpoint-schedule-card]");
  await card.screenshot({ path: screenshotPath("checkpoint-schedule-desktop-en-confirm.png"), style: UNSTICK });
  // The same confirmation at a phone's width (this run alone may change the policies).
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(confirm.getByRole("button", { name: "Delete idle threads" })).toBeVisible();
  await expectTouchTargetsIn(confirm);
  await card.screenshot({ path: screenshotPath("checkpoint-schedule-narrow-en-confirm.png"), style: UNSTICK });
  await page.setViewportSize({ width: 1280, height: 800 });
  await confirm.getByRole("button", { name: "Delete idle threads" }).click();
  // The first pass runs at once (no window in the e2e server); fresh threads are kept.
  await expect(expiry.getByTestId("expiry-latest")).toContainText("Completed", { timeout: 60_000 });
  await expect(expiry.getByTestId("expiry-count")).toContainText("No thread has been expired yet.");
  await card.screenshot({ path: screenshotPath("checkpoint-schedule-desktop-en-armed.png"), style: UNSTICK });
  // Off again: no confirmation is needed to stop deleting.
  await expiry.getByRole("switch", { name: "Expire idle threads" }).click();
  await expiry.getByTestId("expiry-save").click();
  await expect(expiry.getByRole("switch", { name: "Expire idle threads" })).toHaveAttribute("aria-checked", "false");
  await expect(expiry.getByTestId("expiry-next")).toHaveCount(0);
});

test("viewer sees both policies read-only, without controls", async ({ page }, testInfo) => {
  await signIn(page, VIEWER);
  await page.goto("/zh-cn/settings/data-logs/database");
  const card = page.getByTestId("checkpoint-schedule-card");
  await expect(card.getByTestId("expiry-readonly")).toBeVisible();
  await expect(card.getByTestId("checkpoint-cleanup-readonly")).toBeVisible();
  await expect(card.getByRole("switch")).toHaveCount(0);
  await expect(card.getByRole("button")).toHaveCount(0);
  await card.scrollIntoViewIfNeeded();
  await expectNoSeriousViolations(page, "[data-testid=checkpoint-schedule-card]");
  await card.screenshot({ path: screenshotPath(`checkpoint-schedule-${testInfo.project.name}-zh-cn-viewer.png`), style: UNSTICK });
});
