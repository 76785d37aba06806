// The task page's compaction panel (issue 29) on a server of its own (a
// backup and a compaction pass are global state): an admin sees what
// compaction removed, runs the dry run, reads the confirmation (what comes
// back, from which backup, what stays, the hold), restores with the keyboard
// and gets the output back; a viewer sees the states without controls.
// Five locales, desktop and phone, axe and 44 px targets.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";

test.describe.configure({ mode: "serial" });

const PORTS = { desktop: 3271, phone: 3272 } as const;
const TASK = "e2e-restore";
const OLD = "2026-01-05T09:00:00Z";
const STATUS_PATH = "/api/v1/system/database/tool-payload-retention";
const STDOUT = (i: number) => `restored output line ${i}`;

function fixture(): string {
  const message = (i: number) => ({
    id: `${TASK}-m${i}`,
    turnId: `${TASK}-u`,
    authorType: "agent",
    type: "tool_execute",
    content: "Run tests",
    metadata: {
      tool_call_id: `${TASK}-c${i}`,
      title: `npm test ${i}`,
      status: "complete",
      normalized: { kind: "shell_exec", shell_exec: { command: `npm test ${i}`, work_dir: "/repo", output: { exit_code: 0, stdout: `${STDOUT(i)}\n`.repeat(200), stderr: "", truncated: false } } },
    },
    createdAt: OLD,
    updatedAt: OLD,
  });
  return JSON.stringify({
    format: "workspace-fixture",
    version: 1,
    tasks: [
      {
        id: TASK,
        title: "E2E restore: the flaky build",
        state: "COMPLETED",
        createdAt: OLD,
        updatedAt: OLD,
        queuedForStep: false,
        sessions: [
          {
            id: `${TASK}-s`,
            state: "COMPLETED",
            startedAt: OLD,
            updatedAt: OLD,
            completedAt: OLD,
            turns: [{ id: `${TASK}-u`, startedAt: OLD, completedAt: OLD }],
            messages: [0, 1, 2].map(message),
            queuedMessages: [],
            runs: [{ id: `${TASK}-r`, state: "SUCCEEDED" }],
          },
        ],
      },
    ],
  });
}

let server: IsolatedServer;

test.beforeAll(async ({ request }, testInfo) => {
  test.setTimeout(300_000);
  server = await startIsolatedServer(PORTS[testInfo.project.name as keyof typeof PORTS] ?? 3273);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wsr-e2e-restore-"));
  const file = path.join(dir, "restore.json");
  fs.writeFileSync(file, fixture());
  const imported = spawnSync("npm", ["run", "-s", "db:import", "--", file], { env: { ...process.env, DATABASE_URL: `file:${server.dbFile}` }, stdio: "inherit" });
  fs.rmSync(dir, { recursive: true, force: true });
  if (imported.status !== 0) throw new Error("import failed");
  // Enable compaction with its preparation backup; the first pass compacts the task.
  const login = await request.post(`${server.baseURL}/api/v1/auth/login`, { data: { email: ADMIN.email, password: ADMIN.password }, headers: { origin: server.baseURL } });
  expect(login.status()).toBe(200);
  const put = await request.put(`${server.baseURL}${STATUS_PATH}`, {
    data: { policy: { enabled: true, age: { value: 1, unit: "weeks" } }, expectedRevision: 0, preparation: "backup" },
    headers: { origin: server.baseURL },
  });
  expect(put.status()).toBe(200);
  await expect
    .poll(async () => ((await (await request.get(`${server.baseURL}/api/v1/tasks/${TASK}/payload-restore`)).json()) as { compacted: { messages: number } }).compacted.messages, {
      timeout: 60_000,
    })
    .toBe(3);
});

test.afterAll(async () => {
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

async function signIn(page: Page, who: typeof ADMIN | typeof VIEWER): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${server.baseURL}/en/sign-in`);
  await page.locator("#email").fill(who.email);
  await page.locator("#password").fill(who.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).not.toHaveURL(/sign-in/);
}

async function openTask(page: Page, locale = "en"): Promise<void> {
  await page.goto(`${server.baseURL}/${locale}/tasks/${TASK}`);
  await expect(page.getByTestId("task-retention-removed")).toBeVisible();
}

test("a viewer sees what was removed and the hold state, without controls", async ({ page }, testInfo) => {
  await signIn(page, VIEWER);
  await openTask(page);
  const panel = page.getByTestId("task-retention");
  await expect(panel.getByTestId("task-retention-removed")).toContainText("removed the tool output of 3 messages");
  await expect(panel.getByTestId("task-hold-state")).toContainText("Not on hold");
  await expect(panel.getByTestId("task-hold-switch")).toHaveCount(0);
  await expect(panel.getByTestId("task-restore")).toHaveCount(0);
  await expect(panel).toContainText("Only administrators");
  await expect(panel.getByTestId("task-restore-availability")).toHaveText("1 backup from before these removals can bring them back.");
  await expectNoSeriousViolations(page, "[data-testid=task-retention]");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`task-restore-viewer-${testInfo.project.name}-en.png`), fullPage: false });
});

// One test per locale: five full-page passes with axe in one test ran past 60 s on two loaded cores.
for (const locale of ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"]) {
  test(`the dry run and its confirmation [${locale}] (nothing changes)`, async ({ page }, testInfo) => {
    await signIn(page, ADMIN);
    await openTask(page, locale);
    const panel = page.getByTestId("task-retention");
    // The list says what the preparation's recorded verification found, and that the backup holds the removed messages.
    await expect(panel.getByTestId("task-restore-verification")).toHaveAttribute("data-state", "verified");
    await expect(panel.getByTestId("task-restore-held-messages")).toContainText("3");
    if (locale === "en") {
      await expect(panel.getByTestId("task-restore-verification")).toHaveText("Verified: its hash and integrity were checked, and the file is unchanged since.");
      await expect(panel.getByTestId("task-restore-held-messages")).toHaveText("Holds 3 of this task's 3 removed messages.");
    }
    await panel.getByTestId("task-restore-check").click();
    const confirm = panel.getByTestId("task-restore-confirm");
    await expect(confirm).toBeVisible();
    await expect(panel.getByTestId("task-restore-count-restorable")).toContainText("3");
    if (locale === "en") {
      await expect(confirm).toContainText("Restore 3 messages?");
      await expect(confirm).toContainText("from the backup of");
      await expect(confirm).toContainText("The task then goes on hold");
    }
    await expectNoSeriousViolations(page, "[data-testid=task-retention]");
    if (testInfo.project.name === "phone") {
      await expectTouchTargetsIn(panel);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    }
    // Full-page shots from the top: the sticky header would cover the panel otherwise.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath(`task-restore-confirm-${testInfo.project.name}-${locale}.png`), fullPage: true });
    const summary = (await (await page.request.get(`${server.baseURL}/api/v1/tasks/${TASK}/payload-restore`)).json()) as { compacted: { messages: number }; latest: unknown };
    expect(summary).toMatchObject({ compacted: { messages: 3 }, latest: null });
  });
}

test("an admin restores with the keyboard: the output answers again and the task is on hold", async ({ page }, testInfo) => {
  test.skip(testInfo.project.name === "phone", "one restore per server: the desktop project restores, the phone project shows the states");
  await signIn(page, ADMIN);
  await openTask(page);
  const panel = page.getByTestId("task-retention");
  await panel.getByTestId("task-restore-check").focus();
  await page.keyboard.press("Enter");
  const button = panel.getByTestId("task-restore-confirm-button");
  await expect(button).toHaveText("Restore 3 messages");
  await button.focus();
  await page.keyboard.press("Enter");
  const latest = panel.getByTestId("task-restore-latest");
  await expect(latest).toHaveAttribute("data-state", "succeeded", { timeout: 30_000 });
  await expect(latest).toContainText("Restored 3 messages");
  await expect(panel.getByTestId("task-hold-state")).toContainText("with a restore");
  await expect(panel.getByTestId("task-hold-switch")).toHaveAttribute("aria-checked", "true");
  await expect(panel.getByTestId("task-retention-removed")).toContainText("has not removed anything");
  // The conversation's output loads again.
  const tool = page.locator(`[data-testid=shell-tool][data-message-id="${TASK}-m0"]`);
  await tool.getByTestId("toggle-output").click();
  await expect(tool.getByTestId("shell-output")).toContainText(STDOUT(0));
  await expectNoSeriousViolations(page, "[data-testid=task-retention]");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath(`task-restore-done-${testInfo.project.name}-en.png`), fullPage: true });

  // The hold switch by keyboard: off, then on again.
  const hold = panel.getByTestId("task-hold-switch");
  await hold.focus();
  await page.keyboard.press("Space");
  await expect(hold).toHaveAttribute("aria-checked", "false");
  await expect(panel.getByTestId("task-hold-state")).toContainText("Not on hold");
  await page.keyboard.press("Space");
  await expect(hold).toHaveAttribute("aria-checked", "true");
});

test("the preparation backup says how long per-task restore stays possible, and deleting it says that ends it", async ({ page }, testInfo) => {
  await signIn(page, ADMIN);
  await page.goto(`${server.baseURL}/en/settings/data-logs/database`);
  await expect(page.getByTestId("restore-window-receipt")).toContainText("While this backup exists");
  const row = page.locator("[data-testid=backup-row]").filter({ has: page.getByTestId("backup-pinned") });
  await row.getByTestId("backup-delete").click();
  const panel = page.getByTestId("pinned-delete-confirm");
  await expect(panel.getByTestId("restore-window-delete")).toContainText("ends per-task restore");
  await expectNoSeriousViolations(page, "[data-testid=pinned-delete-confirm]");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`task-restore-window-${testInfo.project.name}-en.png`), fullPage: false });
  // Nothing deleted: the panel is only closed.
  await panel.getByRole("button", { name: "Cancel" }).click();

  // Any other backup's delete says the same of it.
  const created = await page.request.post(`${server.baseURL}/api/v1/system/database/backups`, { data: {}, headers: { origin: server.baseURL } });
  expect(created.status()).toBe(201);
  await page.reload();
  const plain = page.locator("[data-testid=backup-row]").filter({ hasNot: page.getByTestId("backup-pinned") }).first();
  await plain.getByTestId("backup-delete").click();
  const confirm = page.getByTestId("delete-confirm");
  await expect(confirm.getByTestId("restore-window-delete")).toContainText("ends per-task restore");
  await expectNoSeriousViolations(page, "[data-testid=delete-confirm]");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(page.locator("[data-testid=backup-row]")).toHaveCount(2);
});
