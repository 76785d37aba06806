// Issue 30: every change that removes data states its consequence before the
// administrator commits, with the numbers of the analysis it relied on, and
// cancelling changes nothing (status and revision read back unchanged).
// Checkpoint Clean up, turning compaction on (with a current analysis and
// with none for the age), a shorter period and "Compact messages now", on
// desktop and phone. Own server per project: these change global state.
import { expect, test, type Page } from "@playwright/test";
import { formatBytes, formatCount } from "@/lib/i18n/format";
import { ADMIN } from "./support/accounts";
import { expectNoClippedText, expectNoViolations, expectTouchTargetsIn } from "./support/checks";
import { isolatedPort, startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";
import { ageRunHandles, createThread, regenerateFirstAnswer } from "./support/threads";
import { importWorkspaceFixture } from "./support/workspace-fixture";

test.describe.configure({ mode: "serial" });

const RETENTION = "/api/v1/system/database/tool-payload-retention";
const CHECKPOINTS = "/api/v1/system/database/checkpoints";
const DATABASE = "/settings/data-logs/database";

type Totals = { checkpoints: number; writes: number; checkpointBytes: number; writesBytes: number };
type CheckpointStatus = {
  operation: unknown;
  lastResult: { operationId: string; kind: string; before: Totals; after: Totals; threadsChanged: number } | null;
  cleanup: { reason: string; analysisId: string | null };
};
type Operation = { id: string; state: string; fingerprint?: string; eligibleMessages: number; eligibleTasks: number; payloadBytes: number };
type CompactionStatus = { policy: { enabled: boolean; revision: number; age: { value: number; unit: string } }; latestAnalysis: Operation | null; latestRun: Operation | null; activeOperation: Operation | null };

let server: IsolatedServer;

test.beforeAll(async ({ playwright }, testInfo) => {
  test.setTimeout(240_000);
  // Info lines: the log viewer shows the operations this spec runs.
  server = await startIsolatedServer(isolatedPort(testInfo.project.name === "phone" ? "confirmPhone" : "confirmDesktop"), { LOG_LEVEL: "info" });
  importWorkspaceFixture(server.dbFile);
  // Two agent threads; the first has a regenerated answer, so its replaced run
  // is an abandoned branch, reclaimable once its handles are past their 30 days.
  const api = await playwright.request.newContext();
  expect((await api.post(`${server.baseURL}/api/v1/auth/login`, { data: ADMIN })).status()).toBe(200);
  const first = await createThread(api, server.baseURL, ["Plan the release notes", "Run the unit tests", "Fix the failing build"]);
  await regenerateFirstAnswer(api, server.baseURL, first);
  ageRunHandles(server.dbFile, first, 40);
  await createThread(api, server.baseURL, ["Summarize the open issues", "Draft the weekly report"]);
  await api.dispose();
});

test.afterAll(async () => {
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

async function signIn(page: Page, locale = "en"): Promise<void> {
  await page.goto(`${server.baseURL}/${locale}/sign-in`);
  await page.locator("#email").fill(ADMIN.email);
  await page.locator("#password").fill(ADMIN.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).toHaveURL(new RegExp(`/${locale}${DATABASE}$`));
}

async function json<T>(page: Page, path: string): Promise<T> {
  const response = await page.request.get(`${server.baseURL}${path}`);
  expect(response.status()).toBe(200);
  return (await response.json()) as T;
}

/** The one open dialog on the page: never a second one on top of it. */
async function openDialog(page: Page, testId: string) {
  const dialog = page.getByTestId(testId);
  await expect(dialog).toBeVisible();
  await expect(page.locator("dialog[open]")).toHaveCount(1);
  return dialog;
}

async function waitForCompactionIdle(page: Page): Promise<CompactionStatus> {
  let status: CompactionStatus | null = null;
  await expect
    .poll(async () => {
      status = await json<CompactionStatus>(page, RETENTION);
      return status.activeOperation === null;
    }, { timeout: 90_000 })
    .toBe(true);
  return status!;
}

test("[#30] checkpoint Clean up waits for a current analysis, confirms its numbers, and Cancel changes nothing", async ({ page }, testInfo) => {
  await signIn(page);
  const card = page.getByTestId("checkpoint-storage-card");
  const cleanUp = card.getByTestId("checkpoint-cleanup");
  // No analysis yet: unavailable, and it says why.
  await expect(cleanUp).toBeDisabled();
  await expect(card.getByTestId("checkpoint-cleanup-reason")).toHaveAttribute("data-reason", "no_analysis");
  await expect(card.getByTestId("checkpoint-cleanup-reason")).toContainText("needs an analysis first");

  await card.getByTestId("checkpoint-analyze").click();
  await expect(card.getByTestId("checkpoint-result")).toHaveAttribute("data-kind", "analysis", { timeout: 60_000 });
  await expect(cleanUp).toBeEnabled();
  const before = await json<CheckpointStatus>(page, CHECKPOINTS);
  expect(before.cleanup.reason).toBe("ready");
  const analysis = before.lastResult!;
  const removed = {
    checkpoints: analysis.before.checkpoints - analysis.after.checkpoints,
    writes: analysis.before.writes - analysis.after.writes,
    bytes: analysis.before.checkpointBytes + analysis.before.writesBytes - analysis.after.checkpointBytes - analysis.after.writesBytes,
  };
  expect(removed.checkpoints).toBeGreaterThan(0);

  await cleanUp.click();
  const dialog = await openDialog(page, "checkpoint-confirm");
  // The analysis's own numbers, in the one unit system.
  await expect(dialog.getByTestId("checkpoint-confirm-removed")).toContainText(`${formatCount(removed.checkpoints, "en")} checkpoint`);
  await expect(dialog.getByTestId("checkpoint-confirm-removed")).toContainText(`${formatBytes(removed.bytes, "en")} of stored payload`);
  await expect(dialog.getByTestId("checkpoint-confirm-removed")).toContainText(`in ${analysis.threadsChanged} thread`);
  await expect(dialog.getByTestId("checkpoint-confirm-basis")).toContainText("The analysis finished");
  await expect(dialog.getByTestId("checkpoint-confirm-backup")).toContainText("this database has no backup");
  await expect(dialog).toContainText("Only restoring a backup brings them back");
  // Cancel is where focus starts: Enter on it is the safe default.
  await expect(dialog.getByTestId("checkpoint-confirm-cancel")).toBeFocused();
  await expectNoViolations(page);
  if (testInfo.project.name === "phone") await expectTouchTargetsIn(dialog);
  await expectNoClippedText(dialog, "checkpoint confirmation");
  await page.screenshot({ path: screenshotPath(`confirm-checkpoints-${testInfo.project.name}.png`) });

  await dialog.getByTestId("checkpoint-confirm-cancel").click();
  await expect(page.locator("dialog[open]")).toHaveCount(0);
  const afterCancel = await json<CheckpointStatus>(page, CHECKPOINTS);
  expect(afterCancel).toEqual(before);

  // Escape cancels too.
  await cleanUp.click();
  await openDialog(page, "checkpoint-confirm");
  await page.keyboard.press("Escape");
  await expect(page.locator("dialog[open]")).toHaveCount(0);
  expect(await json<CheckpointStatus>(page, CHECKPOINTS)).toEqual(before);

  await cleanUp.click();
  await (await openDialog(page, "checkpoint-confirm")).getByTestId("checkpoint-confirm-confirm").click();
  await expect(card.getByTestId("checkpoint-result")).toHaveAttribute("data-kind", "cleanup", { timeout: 60_000 });
  const after = await json<CheckpointStatus>(page, CHECKPOINTS);
  // It removed what the confirmation said.
  expect(after.lastResult!.before.checkpoints - after.lastResult!.after.checkpoints).toBe(removed.checkpoints);
  expect(after.cleanup.reason).toBe("after_cleanup");
  await expect(cleanUp).toBeDisabled();
  await expect(card.getByTestId("checkpoint-cleanup-reason")).toHaveAttribute("data-reason", "after_cleanup");

  // The server holds the same rule: a run naming an analysis that no longer describes the state is refused.
  const refused = await page.request.post(`${server.baseURL}${CHECKPOINTS}/run`, { data: { analysisId: analysis.operationId }, headers: { origin: server.baseURL } });
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("analysis_outdated");
});

test("[#30] turning compaction on confirms the current analysis's numbers; Cancel and Discard change nothing; focus comes back", async ({ page }, testInfo) => {
  await signIn(page);
  const card = page.getByTestId("retention-card");
  // A current analysis of the saved age first.
  const analyzed = await page.request.post(`${server.baseURL}${RETENTION}/analyze`, { data: { age: { value: 3, unit: "months" } }, headers: { origin: server.baseURL } });
  expect(analyzed.status()).toBe(202);
  const before = await waitForCompactionIdle(page);
  expect(before.latestAnalysis?.fingerprint).toBe("months:3");
  await page.reload();
  await expect(card.getByTestId("retention-analysis-result")).toHaveAttribute("data-state", "succeeded");

  const toggle = card.getByRole("switch", { name: "Automatic compaction" });
  await toggle.click();
  await card.getByLabel(/Create a backup first/).check();
  // The save bar is a few Tab presses after the control that changed.
  await toggle.focus();
  const save = page.getByTestId("save-bar").getByRole("button", { name: "Save changes" });
  let presses = 0;
  while (presses < 8 && !(await save.evaluate((el) => el === document.activeElement))) {
    await page.keyboard.press("Tab");
    presses += 1;
  }
  await expect(save).toBeFocused();
  expect(presses).toBeLessThanOrEqual(4);

  await page.keyboard.press("Enter");
  const dialog = await openDialog(page, "retention-confirm");
  const a = before.latestAnalysis!;
  await expect(dialog.getByTestId("retention-confirm-removed")).toHaveText(
    `About ${formatBytes(a.payloadBytes, "en")} of tool payloads from ${formatCount(a.eligibleMessages, "en")} messages in ${formatCount(a.eligibleTasks, "en")} tasks.`,
  );
  await expect(dialog.getByTestId("retention-confirm-basis")).toHaveAttribute("data-analysis-id", a.id);
  await expect(dialog.getByTestId("retention-confirm-when")).toContainText("After the backup is written and verified");
  await expect(dialog.getByTestId("retention-confirm-backup")).toContainText("A new backup of the whole database");
  await expect(dialog).toContainText("Only restoring a backup brings the payloads back");
  await expectNoViolations(page);
  await expectNoClippedText(dialog, "enable confirmation");
  if (testInfo.project.name === "phone") await expectTouchTargetsIn(dialog);
  await page.screenshot({ path: screenshotPath(`confirm-enable-${testInfo.project.name}.png`) });

  await dialog.getByTestId("retention-confirm-cancel").click();
  await expect(page.locator("dialog[open]")).toHaveCount(0);
  expect(await json<CompactionStatus>(page, RETENTION)).toEqual(before);
  // The draft is still there to save or discard; Discard puts focus back on the switch.
  await expect(page.getByTestId("save-bar")).toBeVisible();
  await page.getByTestId("save-bar").getByRole("button", { name: "Discard" }).click();
  await expect(page.getByTestId("save-bar")).toBeHidden();
  await expect(toggle).toBeFocused();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
  expect(await json<CompactionStatus>(page, RETENTION)).toEqual(before);
});

test("[#30] with no analysis for the new age the confirmation counts first (with progress), then confirms; saving enables", async ({ page }) => {
  await signIn(page);
  const card = page.getByTestId("retention-card");
  const before = await waitForCompactionIdle(page);
  await card.getByLabel("Unit").selectOption("weeks");
  await card.getByLabel("Age", { exact: true }).fill("2");
  const toggle = card.getByRole("switch", { name: "Automatic compaction" });
  await toggle.click();
  await card.getByLabel(/Skip the backup/).check();
  await card.getByLabel(/cannot be brought back without a backup/).check();
  await page.getByTestId("save-bar").getByRole("button", { name: "Save changes" }).click();
  const dialog = await openDialog(page, "retention-confirm");
  const confirm = dialog.getByTestId("retention-confirm-confirm");
  // It counts what 2 weeks would remove, then shows it.
  await expect(dialog.getByTestId("retention-confirm-removed")).toBeVisible({ timeout: 60_000 });
  await expect(confirm).toBeEnabled();
  const counted = await json<CompactionStatus>(page, RETENTION);
  expect(counted.latestAnalysis?.fingerprint).toBe("weeks:2");
  await expect(dialog.getByTestId("retention-confirm-basis")).toHaveAttribute("data-analysis-id", counted.latestAnalysis!.id);
  await expect(dialog.getByTestId("retention-confirm-backup")).toContainText("you chose to skip the backup");
  await dialog.getByTestId("retention-confirm-cancel").click();
  // The count is the one thing recorded; the policy and its revision are not touched.
  const afterCancel = await json<CompactionStatus>(page, RETENTION);
  expect(afterCancel.policy).toEqual(before.policy);
  expect(afterCancel.latestRun).toEqual(before.latestRun);

  await page.getByTestId("save-bar").getByRole("button", { name: "Save changes" }).click();
  await (await openDialog(page, "retention-confirm")).getByTestId("retention-confirm-confirm").click();
  await expect(page.getByTestId("save-bar")).toBeHidden();
  // Focus goes back to the control that started the change: the unit.
  await expect(card.getByLabel("Unit")).toBeFocused();
  const saved = await json<CompactionStatus>(page, RETENTION);
  expect(saved.policy).toEqual({ enabled: true, age: { value: 2, unit: "weeks" }, revision: before.policy.revision + 1 });
});

test("[#30] a shorter period and Compact messages now confirm too; Cancel runs nothing", async ({ page }, testInfo) => {
  await signIn(page);
  const card = page.getByTestId("retention-card");
  const before = await waitForCompactionIdle(page);
  expect(before.policy.enabled).toBe(true);
  await expect(card.getByTestId("retention-state")).toHaveText("Enabled");

  await card.getByLabel("Age", { exact: true }).fill("1");
  await card.getByLabel(/Skip the backup/).check();
  await card.getByLabel(/cannot be brought back without a backup/).check();
  await page.getByTestId("save-bar").getByRole("button", { name: "Save changes" }).click();
  let dialog = await openDialog(page, "retention-confirm");
  await expect(dialog.getByRole("heading")).toHaveText("Compact tasks after a shorter period?");
  await expect(dialog.getByTestId("retention-confirm-removed")).toBeVisible({ timeout: 60_000 });
  await dialog.getByTestId("retention-confirm-cancel").click();
  const afterShorten = await json<CompactionStatus>(page, RETENTION);
  expect(afterShorten.policy).toEqual(before.policy);
  expect(afterShorten.latestRun).toEqual(before.latestRun);
  await page.getByTestId("save-bar").getByRole("button", { name: "Discard" }).click();

  await card.getByTestId("retention-run-now").click();
  dialog = await openDialog(page, "retention-confirm");
  await expect(dialog.getByRole("heading")).toHaveText("Compact messages now?");
  await expect(dialog.getByTestId("retention-confirm-removed")).toBeVisible({ timeout: 60_000 });
  await expect(dialog.getByTestId("retention-confirm-when")).toHaveText("Now.");
  await expect(dialog.getByTestId("retention-confirm-backup")).toContainText("the backup was skipped");
  await expectNoClippedText(dialog, "compact now confirmation");
  await page.screenshot({ path: screenshotPath(`confirm-run-${testInfo.project.name}.png`) });
  const counted = await json<CompactionStatus>(page, RETENTION);
  await dialog.getByTestId("retention-confirm-cancel").click();
  const afterRunCancel = await json<CompactionStatus>(page, RETENTION);
  expect(afterRunCancel.latestRun).toEqual(counted.latestRun);
  expect(afterRunCancel.activeOperation).toBeNull();
  expect(afterRunCancel.policy).toEqual(before.policy);

  await card.getByTestId("retention-run-now").click();
  await (await openDialog(page, "retention-confirm")).getByTestId("retention-confirm-confirm").click();
  await expect.poll(async () => (await json<CompactionStatus>(page, RETENTION)).latestRun?.id, { timeout: 90_000 }).not.toBe(counted.latestRun?.id);
});

const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;

test("[#30] scan details: seconds and duration, counts that add up, reasons that say what to do; the estimate does not claim tasks kept changing", async ({ page }) => {
  await signIn(page);
  const status = await waitForCompactionIdle(page);
  const analysis = status.latestAnalysis as Operation & { startedAt: string; finishedAt: string; scannedRows: number; skipped: Record<string, number>; progress?: { processedTasks: number } };
  const card = page.getByTestId("retention-card");
  const result = card.getByTestId("retention-analysis-result");
  await expect(result).toBeVisible();
  await expect(result).not.toContainText("kept changing");
  const details = card.getByTestId("retention-analysis-details");
  const toggle = details.getByTestId("retention-analysis-details-toggle");
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(toggle.locator("svg")).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  // 12:34:56 twice, and how long it took.
  await expect(details.getByTestId("retention-analysis-details-window")).toHaveText(/\d:\d{2}:\d{2}.* to .*\d:\d{2}:\d{2}.*\(took .+\)/);
  const taskReasons = ["unknown_state", "invalid_timestamp", "recent_activity", "live_task", "open_turn"];
  const taskSkips = Object.entries(analysis.skipped).filter(([r]) => taskReasons.includes(r)).reduce((n, [, c]) => n + c, 0);
  const rowSkips = Object.entries(analysis.skipped).filter(([r]) => !taskReasons.includes(r)).reduce((n, [, c]) => n + c, 0);
  expect(analysis.eligibleMessages + rowSkips).toBe(analysis.scannedRows);
  await expect(details.getByTestId("retention-analysis-details-tasks")).toHaveText(
    `${formatCount(analysis.eligibleTasks + taskSkips, "en")} = ${formatCount(analysis.eligibleTasks, "en")} eligible + ${formatCount(taskSkips, "en")} skipped`,
  );
  await expect(details.getByTestId("retention-analysis-details-messages")).toHaveText(
    `${formatCount(analysis.scannedRows, "en")} = ${formatCount(analysis.eligibleMessages, "en")} eligible + ${formatCount(rowSkips, "en")} skipped`,
  );
  // The fixture's unknown state and unreadable timestamp: each with what to do about it.
  const unknown = details.locator('[data-reason="unknown_state"]');
  await expect(unknown).toContainText("1 task");
  await expect(unknown).toContainText("set it to a known one");
  const timestamp = details.locator('[data-reason="invalid_timestamp"]');
  await expect(timestamp).toContainText("1 task");
  await expect(timestamp).toContainText("Correct the stored time");
});

test("[#30] log lines carry seconds and byte fields read in the cards' units; pt-pt says pontos de controlo; zh-tw has no stray space", async ({ page }) => {
  await signIn(page);
  const logs = page.getByTestId("logs-card");
  const finished = logs.getByTestId("log-entry").filter({ hasText: "analysis finished" }).first();
  await expect(finished).toBeVisible();
  await expect(finished.locator("time")).toHaveText(/\d:\d{2}:\d{2}/);
  const bytes = finished.locator("li").filter({ hasText: "bytes=" });
  await expect(bytes).toHaveText(/bytes=[\d,]+ \([\d.]+ (B|kB|MB|GB)\)/);

  await page.goto(`${server.baseURL}/pt-pt${DATABASE}`);
  const checkpoints = page.getByTestId("checkpoint-storage-card");
  await expect(checkpoints.getByTestId("checkpoint-result")).toBeVisible();
  await expect(checkpoints).toContainText("Pontos de controlo");
  expect(await checkpoints.innerText()).not.toMatch(/checkpoint/i);

  await page.goto(`${server.baseURL}/zh-tw${DATABASE}`);
  const line = page.getByTestId("checkpoint-result-threads");
  await expect(line).toContainText("已略過");
  expect(await line.innerText()).not.toMatch(/[。，、：] /);
});

// One test per locale (five pages each): all five in one test outlast any sane timeout on two loaded cores.
for (const locale of LOCALES) {
  test(`[#30] no clipped text at this project's width, ${locale}: database page, thread view, tasks, a task, accounts`, async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    await signIn(page);
    const storage = await json<{ largestThreads: { threadId: string }[] }>(page, CHECKPOINTS);
    const threadId = storage.largestThreads[0]!.threadId;
    await page.goto(`${server.baseURL}/${locale}${DATABASE}`);
    await expect(page.getByTestId("checkpoint-result")).toBeVisible();
    await expect(page.getByTestId("retention-analysis-result")).toBeVisible();
    await expect(page.locator("[data-loading]")).toHaveCount(0);
    const details = page.getByTestId("retention-analysis-details-toggle");
    await details.click();
    await expect(details).toHaveAttribute("aria-expanded", "true");
    if (testInfo.project.name === "phone") {
      const sizes = page.getByTestId("table-sizes-toggle");
      await sizes.click();
      await expect(sizes).toHaveAttribute("aria-expanded", "true");
    }
    await expectNoClippedText(page.locator("main"), `${locale} database`);
    await page.goto(`${server.baseURL}/${locale}${DATABASE}/threads/${threadId}`);
    await expect(page.getByTestId("thread-summary")).toBeVisible();
    await page.getByTestId("thread-turn").first().getByRole("button").click();
    await expect(page.getByTestId("thread-turn").first().locator("table")).toBeVisible();
    await expectNoClippedText(page.locator("main"), `${locale} thread`);
    await page.goto(`${server.baseURL}/${locale}/tasks`);
    await expect(page.getByTestId("task-link").first()).toBeVisible();
    await expectNoClippedText(page.locator("main"), `${locale} tasks`);
    await page.getByTestId("task-link").first().click();
    await expect(page.getByTestId("conversation-title")).toBeVisible();
    await expectNoClippedText(page.locator("main"), `${locale} task`);
    await page.goto(`${server.baseURL}/${locale}/settings/access/accounts`);
    await expect(page.getByTestId("accounts-card").getByRole("table")).toBeVisible();
    await expectNoClippedText(page.locator("main"), `${locale} accounts`);
  });
}

test("[#30] every size shown for this database agrees across the cards, the thread view, the CLI and the API", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  // A fresh checkpoint analysis, so "reclaimable" can be compared everywhere.
  const started = await page.request.post(`${server.baseURL}${CHECKPOINTS}/analyze`, { data: {}, headers: { origin: server.baseURL } });
  expect(started.status()).toBe(202);
  await expect.poll(async () => (await json<CheckpointStatus>(page, CHECKPOINTS)).lastResult?.kind, { timeout: 60_000 }).toBe("analysis");
  type Storage = CheckpointStatus & { tables: { checkpoints: { rows: number; bytes: number }; writes: { rows: number; bytes: number } }; largestThreads: { threadId: string; checkpoints: number; writes: number; bytes: number }[] };
  type Thread = { checkpoints: number; bytes: number; reclaimableCheckpoints: number; reclaimableBytes: number; nextRunBytes: number };
  const storage = await json<Storage>(page, CHECKPOINTS);
  const threads = new Map<string, Thread>();
  for (const t of storage.largestThreads) threads.set(t.threadId, await json<Thread>(page, `/api/v1/threads/${t.threadId}/checkpoints`));
  const result = storage.lastResult!;
  const sum = (f: (t: Thread) => number) => [...threads.values()].reduce((n, t) => n + f(t), 0);

  // The API agrees with itself: the thread view counts what the card counts.
  for (const t of storage.largestThreads) expect(threads.get(t.threadId)!.bytes, t.threadId).toBe(t.bytes);
  expect(sum((t) => t.checkpoints)).toBe(storage.tables.checkpoints.rows);
  expect(sum((t) => t.bytes)).toBe(storage.tables.checkpoints.bytes + storage.tables.writes.bytes);
  // "Reclaimable" means the same thing in the analysis and the thread view.
  expect(sum((t) => t.reclaimableCheckpoints)).toBe(result.before.checkpoints - result.after.checkpoints);
  expect(sum((t) => t.reclaimableBytes)).toBe(result.before.checkpointBytes + result.before.writesBytes - result.after.checkpointBytes - result.after.writesBytes);

  await page.reload();
  const card = page.getByTestId("checkpoint-storage-card");
  await expect(card.getByTestId("checkpoint-result")).toHaveAttribute("data-kind", "analysis");
  const lastCell = (testId: string) => card.getByTestId(testId).locator("td").last();
  await expect(lastCell("checkpoint-table-checkpoints")).toHaveText(formatBytes(storage.tables.checkpoints.bytes, "en"));
  await expect(lastCell("checkpoint-table-writes")).toHaveText(formatBytes(storage.tables.writes.bytes, "en"));
  await expect(lastCell("checkpoint-result-checkpointBytes")).toHaveText(formatBytes(result.before.checkpointBytes - result.after.checkpointBytes, "en"));
  await expect(lastCell("checkpoint-result-writesBytes")).toHaveText(formatBytes(result.before.writesBytes - result.after.writesBytes, "en"));
  // The Database file card measures pages with indexes, a different quantity: the checkpoint card says so.
  await expect(card.getByTestId("checkpoint-payload-note")).toContainText("The Database file card counts the disk pages");
  const stats = await json<{ tables: { name: string; totalBytes: number }[] }>(page, "/api/v1/system/database/stats");
  const statsRow = page.getByTestId("table-row-checkpoints");
  if (await statsRow.isVisible()) await expect(statsRow.locator("td").last()).toHaveText(formatBytes(stats.tables.find((t) => t.name === "checkpoints")!.totalBytes, "en"));

  for (const t of storage.largestThreads) {
    // `has` is resolved inside each row: the row that links to this thread.
    const row = card.getByTestId("largest-thread").filter({ has: page.locator(`a[href$="/threads/${t.threadId}"]`) });
    await expect(row.locator("td").last()).toHaveText(formatBytes(t.bytes, "en"));
    const view = threads.get(t.threadId)!;
    await page.goto(`${server.baseURL}/en${DATABASE}/threads/${t.threadId}`);
    await expect(page.getByTestId("thread-size")).toHaveText(formatBytes(view.bytes, "en"));
    await expect(page.getByTestId("thread-reclaimable")).toContainText(formatBytes(view.reclaimableBytes, "en"));
    await expect(page.getByTestId("thread-next-run")).toContainText(formatBytes(view.nextRunBytes, "en"));
    await page.goto(`${server.baseURL}/en${DATABASE}`);
  }

  // Messages compaction: the card, the last run and the operator CLI name the same sizes.
  const status = await waitForCompactionIdle(page);
  const analysis = status.latestAnalysis!;
  const compaction = page.getByTestId("retention-card");
  await expect(compaction.getByTestId("retention-analysis-result")).toContainText(formatBytes(analysis.payloadBytes, "en"));
  if (status.latestRun && status.latestRun.payloadBytes > 0) {
    await expect(compaction.getByTestId("retention-run-outcome")).toContainText(`${formatBytes(status.latestRun.payloadBytes, "en")} removed`);
  }
  const { spawnSync } = await import("node:child_process");
  const cli = spawnSync("npm", ["run", "-s", "compaction", "--", "status"], { env: { ...process.env, DATABASE_URL: `file:${server.dbFile}`, LOG_LEVEL: "error" }, encoding: "utf8" });
  expect(cli.status, cli.stderr).toBe(0);
  expect(cli.stdout).toContain(`payload ${formatBytes(analysis.payloadBytes, "en")} (${formatCount(analysis.payloadBytes, "en")} bytes)`);
});

test("[#30] turning compaction back on confirms too, with a fresh count since the last pass; Cancel leaves it off at the same revision", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page);
  const card = page.getByTestId("retention-card");
  const toggle = card.getByRole("switch", { name: "Automatic compaction" });
  const saveBar = page.getByTestId("save-bar");
  await waitForCompactionIdle(page);
  // Turning it off removes nothing: no confirmation.
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await toggle.click();
  await saveBar.getByRole("button", { name: "Save changes" }).click();
  await expect(saveBar).toBeHidden();
  await expect(page.locator("dialog[open]")).toHaveCount(0);
  const off = await waitForCompactionIdle(page);
  expect(off.policy.enabled).toBe(false);

  await toggle.click();
  await card.getByLabel(/Skip the backup/).check();
  await card.getByLabel(/cannot be brought back without a backup/).check();
  await saveBar.getByRole("button", { name: "Save changes" }).click();
  const dialog = await openDialog(page, "retention-confirm");
  await expect(dialog.getByRole("heading")).toHaveText("Turn automatic compaction back on?");
  // The latest analysis is older than the last pass: the dialog counts again before it confirms.
  await expect(dialog.getByTestId("retention-confirm-removed")).toBeVisible({ timeout: 60_000 });
  const counted = await json<CompactionStatus>(page, RETENTION);
  const analysis = counted.latestAnalysis! as Operation & { finishedAt: string };
  // What it relied on is newer than the last pass (the rule that made the earlier count stale).
  const lastPass = off.latestRun as (Operation & { startedAt: string; finishedAt: string | null }) | null;
  if (lastPass) expect(Date.parse(analysis.finishedAt)).toBeGreaterThanOrEqual(Date.parse(lastPass.finishedAt ?? lastPass.startedAt));
  await expect(dialog.getByTestId("retention-confirm-basis")).toHaveAttribute("data-analysis-id", analysis.id);
  // The earlier pass removed what was old enough, so this count may be zero: the dialog says so rather than "about 0 B".
  await expect(dialog.getByTestId("retention-confirm-removed")).toHaveText(
    analysis.eligibleMessages === 0
      ? "Nothing right now: no inactive task is old enough. Later passes remove payloads as tasks age past the period."
      : `About ${formatBytes(analysis.payloadBytes, "en")} of tool payloads from ${formatCount(analysis.eligibleMessages, "en")} messages in ${formatCount(analysis.eligibleTasks, "en")} tasks.`,
  );
  await expect(dialog.getByTestId("retention-confirm-backup")).toContainText("you chose to skip the backup");
  await expect(dialog).toContainText("Only restoring a backup brings the payloads back");
  await expectNoClippedText(dialog, "re-enable confirmation");
  if (testInfo.project.name === "phone") await expectTouchTargetsIn(dialog);

  await dialog.getByTestId("retention-confirm-cancel").click();
  await expect(page.locator("dialog[open]")).toHaveCount(0);
  const afterCancel = await json<CompactionStatus>(page, RETENTION);
  expect(afterCancel.policy).toEqual(off.policy);
  expect(afterCancel.latestRun).toEqual(off.latestRun);
  await saveBar.getByRole("button", { name: "Discard" }).click();
  await expect(saveBar).toBeHidden();
  await expect(toggle).toHaveAttribute("aria-checked", "false");
});
