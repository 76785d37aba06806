// Messages compaction card, end to end in Chromium (desktop and phone).
// Runs against its own isolated server (policy changes stay out of the other
// specs) seeded with old finished tasks carrying large shell outputs, so
// analysis and cleanup take long enough to watch their progress.
import AxeBuilder from "@axe-core/playwright";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { isolatedPort, startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";

test.describe.configure({ mode: "serial" });

const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;
const STATUS_PATH = "/api/v1/system/database/tool-payload-retention";
const DATABASE = "/settings/data-logs/database";

let server: IsolatedServer;
let consoleErrors: string[] = [];

/** Old, finished tasks whose shell outputs are worth compacting. */
function writeFixture(file: string): void {
  const chunk = "line of build output that goes on and on\n".repeat(400);
  const at = (day: number, hour = 10) => new Date(Date.UTC(2025, 0, day, hour)).toISOString().replace(".000Z", "Z");
  const tasks = Array.from({ length: 30 }, (_, t) => ({
    id: `e2e-task-${t}`,
    title: `Old task ${t}`,
    state: "COMPLETED",
    createdAt: at(1 + t),
    updatedAt: at(1 + t, 12),
    queuedForStep: false,
    sessions: [
      {
        id: `e2e-session-${t}`,
        state: "COMPLETED",
        startedAt: at(1 + t),
        updatedAt: at(1 + t, 12),
        completedAt: at(1 + t, 12),
        turns: [{ id: `e2e-turn-${t}`, startedAt: at(1 + t), completedAt: at(1 + t, 12) }],
        messages: Array.from({ length: 80 }, (_, m) => ({
          id: `e2e-m-${t}-${m}`,
          turnId: `e2e-turn-${t}`,
          authorType: "agent",
          type: "tool_execute",
          content: "Run tests",
          metadata: {
            tool_call_id: `e2e-c-${t}-${m}`,
            title: "npm test",
            status: "complete",
            normalized: { kind: "shell_exec", shell_exec: { command: "npm test", work_dir: "/repo", output: { exit_code: 0, stdout: chunk, stderr: "", truncated: false } } },
          },
          createdAt: at(1 + t, 11),
          updatedAt: at(1 + t, 11),
        })),
        queuedMessages: [],
        runs: [],
      },
    ],
  }));
  fs.writeFileSync(file, JSON.stringify({ format: "workspace-fixture", version: 1, tasks }));
}

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(240_000);
  // A pause after every batch keeps the pass running long enough to cancel it,
  // however fast this machine compacts (the fixture's 38 MB take about ten
  // batches once they have grown to their size).
  server = await startIsolatedServer(isolatedPort(testInfo.project.name === "phone" ? "retentionPhone" : "retentionDesktop"), { COMPACTION_BATCH_PAUSE_MS: "1500" });
  const fixture = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wsr-retention-")), "fixture.json");
  writeFixture(fixture);
  const imported = spawnSync("npm", ["run", "-s", "db:import", "--", fixture], { env: { ...process.env, DATABASE_URL: `file:${server.dbFile}` }, stdio: "inherit" });
  if (imported.status !== 0) throw new Error("fixture import failed");
});

test.afterAll(async () => {
  // Do not hang the run if the server waits on a lingering connection.
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

test.beforeEach(async ({ page }) => {
  consoleErrors = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
});

async function signIn(page: Page, account: { email: string; password: string }, locale = "en"): Promise<void> {
  await page.goto(`${server.baseURL}/${locale}/sign-in`);
  await page.locator("#email").fill(account.email);
  await page.locator("#password").fill(account.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).toHaveURL(new RegExp(`/${locale}${DATABASE}$`));
  await expect(page.getByTestId("retention-card")).toBeVisible();
}

async function adminPage(browser: Browser, locale = "en"): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.baseURL });
  const page = await context.newPage();
  await signIn(page, ADMIN, locale);
  return page;
}

const card = (page: Page) => page.getByTestId("retention-card");
const saveBar = (page: Page) => page.getByTestId("save-bar");
const realErrors = () => consoleErrors.filter((text) => !/Failed to load resource|EventSource|net::ERR_/.test(text));

/**
 * Save. A change that removes data (`confirm`) opens the confirmation first:
 * it waits for the numbers of a current analysis, then confirms.
 */
async function saveChanges(page: Page, options: { confirm?: boolean } = {}): Promise<void> {
  await saveBar(page).getByRole("button", { name: "Save changes" }).click();
  if (options.confirm) await confirmRemoval(page);
  await expect(saveBar(page)).toBeHidden();
}

async function confirmRemoval(page: Page): Promise<void> {
  const dialog = page.getByTestId("retention-confirm");
  await expect(dialog).toBeVisible();
  const confirm = dialog.getByTestId("retention-confirm-confirm");
  // The dialog counts first when no analysis is current; Confirm waits for it.
  await expect(confirm).toBeEnabled({ timeout: 60_000 });
  await confirm.click();
  await expect(dialog).toBeHidden();
}

test("viewer sees the status read-only with an explanation and no controls", async ({ page }) => {
  await signIn(page, VIEWER);
  const c = card(page);
  await expect(c.getByTestId("retention-read-only")).toBeVisible();
  await expect(c.getByTestId("retention-automatic-readonly")).toContainText("Off");
  await expect(c.getByRole("switch")).toHaveCount(0);
  await expect(c.getByRole("spinbutton")).toHaveCount(0);
  // Refresh reads; the details' disclosures only show more: nothing a viewer can change.
  await expect(c.getByRole("button").filter({ hasNot: page.locator("[aria-expanded]") })).toHaveText(["Refresh"]);
  await expect(c.getByRole("checkbox")).toHaveCount(0);
  expect(realErrors()).toEqual([]);
});

for (const locale of LOCALES) {
  test(`${locale} renders the card without missing messages`, async ({ page }) => {
    await signIn(page, ADMIN, locale);
    const c = card(page);
    await expect(c.getByRole("switch")).toBeVisible();
    await expect(c.getByTestId("retention-not-analyzed")).toBeVisible();
    const text = await c.innerText();
    expect(text, locale).not.toMatch(/retention\.[a-zA-Z]/);
    expect(realErrors().filter((text) => /MISSING_MESSAGE|FORMATTING_ERROR|INVALID/.test(text))).toEqual([]);
    expect(realErrors()).toEqual([]);
  });
}

test("admin analyzes savings and sees an estimate with its chart", async ({ page }) => {
  await signIn(page, ADMIN);
  const c = card(page);
  await expect(c.getByTestId("retention-not-analyzed")).toBeVisible();
  await c.getByRole("button", { name: "Analyze savings" }).click();
  const result = c.getByTestId("retention-analysis-result");
  await expect(result).toBeVisible({ timeout: 60_000 });
  await expect(result).toHaveAttribute("data-state", "succeeded", { timeout: 60_000 });
  await expect(result).toContainText("Estimate");
  await expect(result.getByTestId("retention-kind-chart")).toContainText("Shell output");
  await result.getByRole("button", { name: "Scan details" }).click();
  await expect(result.getByTestId("retention-analysis-details")).toContainText("Tool messages scanned");
  // Another age makes the estimate stale.
  await c.getByLabel("Age", { exact: true }).fill("5");
  await expect(result).toHaveAttribute("data-stale", "draft");
  await saveBar(page).getByRole("button", { name: "Discard" }).click();
  await expect(result).toHaveAttribute("data-stale", "no");
  expect(realErrors()).toEqual([]);
});

test("admin enables with skip, watches the cleanup, cancels it, then compacts now to a result", async ({ page }) => {
  await signIn(page, ADMIN);
  const c = card(page);
  await c.getByRole("switch", { name: "Automatic compaction" }).click();
  await expect(c.getByTestId("retention-backup-choice")).toBeVisible();
  await expect(saveBar(page).getByRole("button", { name: "Save changes" })).toBeDisabled();
  await c.getByLabel(/Skip the backup/).check();
  await expect(saveBar(page).getByRole("button", { name: "Save changes" })).toBeDisabled();
  await c.getByLabel(/cannot be brought back without a backup/).check();
  await saveChanges(page, { confirm: true });
  const progress = c.getByTestId("retention-progress-cleanup");
  await expect(progress).toBeVisible({ timeout: 30_000 });
  await expect(progress.getByRole("progressbar")).toBeVisible();
  // Counts arrive over Server-Sent Events while the pass runs.
  await expect(progress).toHaveAttribute("data-source", "events");
  await progress.getByRole("button", { name: "Cancel" }).click();
  const outcome = c.getByTestId("retention-run-outcome");
  await expect(outcome).toHaveAttribute("data-state", "cancelled", { timeout: 60_000 });
  await expect(outcome).toContainText("Cancelled");
  await expect(c.getByTestId("retention-state")).toHaveText("Enabled");

  await c.getByRole("button", { name: "Compact messages now" }).click();
  await confirmRemoval(page);
  await expect(outcome).toHaveAttribute("data-state", "succeeded", { timeout: 90_000 });
  await expect(outcome).toContainText("Completed");
  expect(realErrors()).toEqual([]);
});

test("admin disables, then enables with a backup: Preparing, then Enabled", async ({ page }) => {
  await signIn(page, ADMIN);
  const c = card(page);
  const toggle = c.getByRole("switch", { name: "Automatic compaction" });
  await expect(toggle).toHaveAttribute("aria-checked", "true");
  await toggle.click();
  await saveChanges(page);
  await expect(c.getByTestId("retention-state")).toHaveText("Off");
  await toggle.click();
  await c.getByLabel(/Create a backup first/).check();
  await saveBar(page).getByRole("button", { name: "Save changes" }).click();
  const dialog = page.getByTestId("retention-confirm");
  await expect(dialog.getByTestId("retention-confirm-confirm")).toBeEnabled({ timeout: 60_000 });
  // A small backup finishes fast: status reads wait until the card has shown
  // the PUT's own answer (preparation pending), so that is what it shows.
  const statusUrl = `**${STATUS_PATH}`;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(statusUrl, async (route) => {
    if (route.request().method() === "GET") await held;
    await route.fallback();
  });
  await dialog.getByTestId("retention-confirm-confirm").click();
  await expect(saveBar(page)).toBeHidden();
  await expect(c.getByTestId("retention-state")).toHaveText("Preparing");
  release();
  await page.unroute(statusUrl);
  await expect(c.getByTestId("retention-state")).toHaveText("Enabled", { timeout: 90_000 });
  await expect(c.getByTestId("retention-receipt")).toBeVisible();
  expect(realErrors()).toEqual([]);
});

test("a 409 from a second tab keeps the draft, shows the server policy and rebases", async ({ browser }) => {
  const first = await adminPage(browser);
  const second = await adminPage(browser);
  try {
    // The first tab's draft exists before the other tab saves: an unchanged form would
    // (rightly) take the server's newer policy from the event stream, and whether that
    // event lands before the typing is a race on a loaded machine.
    await card(first).getByLabel("Age", { exact: true }).fill("9");
    await card(second).getByLabel("Age", { exact: true }).fill("6");
    await saveChanges(second);
    await saveBar(first).getByRole("button", { name: "Save changes" }).click();
    const conflict = card(first).getByTestId("retention-conflict");
    await expect(conflict).toBeVisible();
    await expect(conflict.getByTestId("retention-conflict-server")).toContainText("6 months");
    await expect(card(first).getByLabel("Age", { exact: true })).toHaveValue("9");
    await conflict.getByRole("button", { name: "Keep my changes" }).click();
    await saveChanges(first);
    await expect(card(first).getByLabel("Age", { exact: true })).toHaveValue("9");
    await second.reload();
    await expect(card(second).getByLabel("Age", { exact: true })).toHaveValue("9");
    // The other way out: take the server's version. (Lengthening keeps the
    // approval; shortening would ask for the backup choice again.)
    await card(first).getByLabel("Age", { exact: true }).fill("12");
    await card(second).getByLabel("Age", { exact: true }).fill("11");
    await saveChanges(second);
    await saveBar(first).getByRole("button", { name: "Save changes" }).click();
    await card(first).getByRole("button", { name: "Use server version" }).click();
    await expect(card(first).getByLabel("Age", { exact: true })).toHaveValue("11");
    await expect(saveBar(first)).toBeHidden();
  } finally {
    await first.context().close();
    await second.context().close();
  }
});

test("an action error and a status-read error at once: the action error wins, Dismiss reveals the read error", async ({ page }) => {
  await signIn(page, ADMIN);
  const c = card(page);
  await expect(c.getByRole("button", { name: "Analyze savings" })).toBeEnabled();
  await page.route(`**${STATUS_PATH}`, (route) =>
    route.request().method() === "GET"
      ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "maintenance_busy", message: "busy" } }) })
      : route.fallback(),
  );
  await page.route(`**${STATUS_PATH}/analyze`, (route) =>
    route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: { code: "operation_active", message: "busy" } }) }),
  );
  await c.getByRole("button", { name: "Analyze savings" }).click();
  const action = c.getByTestId("retention-error-action");
  await expect(action).toBeVisible();
  await expect(action).toContainText("Another compaction operation is already running.");
  await expect(action).toBeFocused();
  await expect(c.getByTestId("retention-error-status")).toHaveCount(0);
  await action.getByRole("button", { name: "Dismiss" }).click();
  const status = c.getByTestId("retention-error-status");
  await expect(status).toBeVisible();
  await expect(status).toContainText("503");
  await page.unroute(`**${STATUS_PATH}`);
  await page.unroute(`**${STATUS_PATH}/analyze`);
  await status.getByRole("button", { name: "Refresh status" }).click();
  await expect(c.getByTestId("retention-error-status")).toHaveCount(0);
});

test("no accessibility violations of any impact; touch targets of at least 44 px on a phone", async ({ page }, testInfo) => {
  await signIn(page, ADMIN);
  await card(page).getByRole("switch", { name: "Automatic compaction" }).click();
  await expect(saveBar(page)).toBeVisible();
  const results = await new AxeBuilder({ page }).include('[data-testid="retention-card"]').include('[data-testid="save-bar"]').analyze();
  expect(results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  if (testInfo.project.name === "phone") {
    // Number and unit side by side, the analysis action below them.
    const value = await card(page).getByLabel("Age", { exact: true }).boundingBox();
    const unit = await card(page).getByLabel("Unit").boundingBox();
    const analyze = await card(page).getByRole("button", { name: "Analyze savings" }).boundingBox();
    expect(Math.abs(value!.y - unit!.y)).toBeLessThan(2);
    expect(unit!.x).toBeGreaterThan(value!.x + value!.width - 1);
    expect(analyze!.y).toBeGreaterThanOrEqual(value!.y + value!.height);
    // The save bar clears the home indicator: its bottom padding includes the safe area.
    const padding = await saveBar(page).evaluate((el) => getComputedStyle(el).paddingBottom);
    expect(parseFloat(padding)).toBeGreaterThanOrEqual(12);
    const small = await page.evaluate(() => {
      const roots = [document.querySelector('[data-testid="retention-card"]'), document.querySelector('[data-testid="save-bar"]')];
      return roots
        .flatMap((root) => [...(root?.querySelectorAll<HTMLElement>("button, input, select, summary, a[href]") ?? [])])
        .filter((el) => getComputedStyle(el).visibility !== "hidden" && el.getBoundingClientRect().width > 1)
        .map((el) => {
          // A radio or checkbox counts by its label's box, which is the touch target.
          const target = el.matches("input[type=radio], input[type=checkbox]") ? (el.closest("label") ?? el) : el;
          const rect = target.getBoundingClientRect();
          return { name: (el.textContent || el.getAttribute("aria-label") || el.id || el.tagName).trim().slice(0, 30), width: rect.width, height: rect.height };
        })
        .filter((r) => r.width < 44 || r.height < 44)
        .map((r) => `${r.name} ${Math.round(r.width)}x${Math.round(r.height)}`);
    });
    expect(small).toEqual([]);
  }
  await saveBar(page).getByRole("button", { name: "Discard" }).click();
});

// The sticky header would be painted over a tall element screenshot.
const unstick = (page: Page) => page.addStyleTag({ content: "header { position: static !important; }" });

// One test per locale: several screenshots in one test outlast its timeout on two loaded cores.
for (const locale of ["en", "zh-cn"]) {
  test(`screenshot of the card, ${locale}`, async ({ page }, testInfo) => {
    await signIn(page, ADMIN, locale);
    const c = card(page);
    await expect(c.getByTestId("retention-analysis-result")).toBeVisible();
    await c.getByTestId("retention-analysis-details-toggle").click();
    await c.getByTestId("retention-run-details-toggle").click();
    await expect(c.getByTestId("retention-run-details-toggle")).toHaveAttribute("aria-expanded", "true");
    await unstick(page);
    await c.screenshot({ path: screenshotPath(`retention-${testInfo.project.name}-${locale}.png`), scale: "css", animations: "disabled" });
  });
}

test("screenshot of the enablement review with the page-level save bar", async ({ page }, testInfo) => {
  await signIn(page, ADMIN);
  const c = card(page);
  await c.getByRole("switch", { name: "Automatic compaction" }).click();
  await c.getByRole("switch", { name: "Automatic compaction" }).click();
  await c.getByLabel("Age", { exact: true }).fill("2");
  await c.getByLabel("Unit").selectOption("weeks");
  await expect(saveBar(page)).toBeVisible();
  // Shortening an approved period asks for the backup choice again, before any save.
  await expect(c.getByTestId("retention-backup-choice")).toBeVisible();
  await expect(saveBar(page).getByRole("button", { name: "Save changes" })).toBeDisabled();
  await c.getByLabel(/Skip the backup/).check();
  await c.getByTestId("retention-automatic").scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`retention-${testInfo.project.name}-en-save-bar.png`) });
});

test("a draft that shortens an enabled period shows the backup choice at once; Save waits for it", async ({ page }) => {
  await signIn(page, ADMIN);
  const c = card(page);
  const toggle = c.getByRole("switch", { name: "Automatic compaction" });
  if ((await toggle.getAttribute("aria-checked")) !== "true") {
    await toggle.click();
    await c.getByLabel(/Skip the backup/).check();
    await c.getByLabel(/I understand that removed tool outputs/).check();
    await saveChanges(page, { confirm: true });
  }
  await expect(c.getByTestId("retention-backup-choice")).toBeHidden();
  await c.getByLabel("Unit").selectOption("weeks");
  await c.getByLabel("Age").fill("1");
  await expect(c.getByTestId("retention-backup-choice")).toBeVisible();
  const save = saveBar(page).getByRole("button", { name: "Save changes" });
  await expect(save).toBeDisabled();
  await page.screenshot({ path: screenshotPath(`retention-shorten-choice-${test.info().project.name}.png`) });
  await c.getByLabel(/Create a backup first/).check();
  await expect(save).toBeEnabled();
  await saveBar(page).getByRole("button", { name: "Discard" }).click();
  expect(realErrors()).toEqual([]);
});

test("damaged settings: the card says what is wrong, and Turn off replaces them", async ({ page }) => {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(server.dbFile);
  try {
    db.prepare("insert into settings (key, value, updated_at_ms) values ('tool_payload_retention', ?, 0) on conflict(key) do update set value = excluded.value")
      .run(JSON.stringify({ version: 1, policy: { enabled: "yes", revision: 41 } }));
  } finally {
    db.close();
  }
  await signIn(page, ADMIN);
  const c = card(page);
  const notice = c.getByTestId("retention-malformed");
  await expect(notice).toBeVisible();
  await expect(notice.getByTestId("retention-malformed-reason")).toContainText("damaged");
  await expect(notice.getByRole("button", { name: "Replace with defaults" })).toBeVisible();
  await page.screenshot({ path: screenshotPath(`retention-malformed-${test.info().project.name}.png`) });
  await notice.getByRole("button", { name: "Turn off" }).click();
  await expect(notice).toBeHidden();
  await expect(c.getByTestId("retention-state")).toHaveText("Off");
  expect(realErrors()).toEqual([]);
});
