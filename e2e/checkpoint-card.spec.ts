// The agent checkpoint storage card on the Database page: read-only mode and
// frequency, table usage, and Analyze / Clean up for admins only.
import { expect, test } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { signIn } from "./support/auth";
import { expectNoViolations, expectTouchTargetsIn } from "./support/checks";
import { fullPageScreenshot } from "./support/screenshot-path";

test("admin sees mode, tables and runs an analysis then a cleanup", async ({ page }, testInfo) => {
  await signIn(page, ADMIN);
  // A real thread with a few runs, through the thread API. Both projects
  // share one server and an analysis holds only while nothing writes
  // checkpoints, so only the desktop run writes them (and starts operations).
  if (testInfo.project.name === "desktop") {
    const api = page.request;
    const origin = new URL(page.url()).origin;
    const { threadId } = await (await api.post("/api/v1/threads", { data: {}, headers: { origin } })).json();
    for (const content of ["list files", "run tests", "fix the failing test"]) {
      const run = await api.post(`/api/v1/threads/${threadId}/runs`, { data: { input: { content } }, headers: { origin } });
      expect(run.status()).toBe(200);
    }
    await page.reload();
  }
  const card = page.getByTestId("checkpoint-storage-card");
  await expect(card).toBeVisible();
  await expect(card.getByTestId("checkpoint-mode")).toContainText("Full state in every checkpoint");
  await expect(card).toContainText("requires a restart");
  await expect(card.getByTestId("checkpoint-tables")).toBeVisible();
  // Both projects share one server: only the desktop run starts operations,
  // so neither sees the other's "already running" answer.
  if (testInfo.project.name === "desktop") {
    await card.getByRole("button", { name: "Analyze" }).click();
    await expect(card.getByTestId("checkpoint-result")).toContainText("Last analysis", { timeout: 30_000 });
    // Clean up confirms the analysis's numbers first.
    await card.getByRole("button", { name: "Clean up" }).click();
    const dialog = page.getByTestId("checkpoint-confirm");
    await expect(dialog.getByTestId("checkpoint-confirm-removed")).toBeVisible();
    await dialog.getByTestId("checkpoint-confirm-confirm").click();
    await expect(card.getByTestId("checkpoint-result")).toContainText("Last cleanup", { timeout: 30_000 });
    await expect(card.getByTestId("checkpoint-result")).toContainText("Before");
    await expect(card.getByRole("alert")).toHaveCount(0);
  }
  await expectNoViolations(page, "[data-testid=checkpoint-storage-card]");
  if (testInfo.project.name === "phone") await expectTouchTargetsIn(card);
  await fullPageScreenshot(page, `checkpoints-${testInfo.project.name}-en.png`);
});

test("viewer sees checkpoint storage read-only, without dead controls", async ({ page }, testInfo) => {
  await signIn(page, VIEWER);
  const card = page.getByTestId("checkpoint-storage-card");
  await expect(card.getByTestId("checkpoint-mode")).toBeVisible();
  await expect(card.getByTestId("checkpoint-admin-only")).toBeVisible();
  await expect(card.getByRole("button", { name: "Analyze" })).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Clean up" })).toHaveCount(0);
  await page.goto("/zh-cn/settings/data-logs/database");
  await expect(page.getByTestId("checkpoint-storage-card")).toBeVisible();
  await page.getByTestId("checkpoint-storage-card").scrollIntoViewIfNeeded();
  await fullPageScreenshot(page, `checkpoints-${testInfo.project.name}-zh-cn.png`);
});
