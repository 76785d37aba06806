// The compaction preparation's backup in the backups card (issue 12, item 5):
// marked as pinned; deleting it asks for its typed name and says compaction
// needs a new preparation. Keyboard only, 44 px targets, desktop and phone.
// Own isolated server: enabling compaction is global state.
import { expect, test, type Page } from "@playwright/test";
import { formatBytes } from "@/lib/i18n/format";
import { ADMIN } from "./support/accounts";
import { expectNoViolations, expectTouchTargetsIn } from "./support/checks";
import { isolatedPort, startIsolatedServer, type IsolatedServer } from "./support/isolated-server";
import { screenshotPath } from "./support/screenshot-path";

test.describe.configure({ mode: "serial" });

const STATUS_PATH = "/api/v1/system/database/tool-payload-retention";
const DATABASE = "/settings/data-logs/database";

let server: IsolatedServer;

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(240_000);
  server = await startIsolatedServer(isolatedPort(testInfo.project.name === "phone" ? "pinnedPhone" : "pinnedDesktop"));
});

test.afterAll(async () => {
  await Promise.race([server?.stop(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.baseURL}/en/sign-in`);
  await page.locator("#email").fill(ADMIN.email);
  await page.locator("#password").fill(ADMIN.password);
  await page.locator("form button[type=submit]").click();
  await expect(page).toHaveURL(new RegExp(`/en${DATABASE}$`));
}

/** Enables compaction with a backup through the API and waits until the preparation is ready. */
async function prepareWithBackup(page: Page): Promise<string> {
  const put = await page.request.put(`${server.baseURL}${STATUS_PATH}`, {
    data: { policy: { enabled: true, age: { value: 3, unit: "months" } }, expectedRevision: 0, preparation: "backup" },
  });
  expect(put.status()).toBe(200);
  let name = "";
  await expect
    .poll(
      async () => {
        const status = (await (await page.request.get(`${server.baseURL}${STATUS_PATH}`)).json()) as { preparation: { state: string; receipt: { name?: string } | null } };
        name = status.preparation.receipt?.name ?? "";
        return status.preparation.state;
      },
      { timeout: 30_000 },
    )
    .toBe("ready");
  return name;
}

test("[TPR-PREP-04] deleting the pinned preparation backup needs its typed name; compaction then needs a new preparation", async ({ page }, testInfo) => {
  await signIn(page);
  const name = await prepareWithBackup(page);
  await page.reload();
  const row = page.locator(`[data-testid=backup-row][data-name="${name}"]`);
  await expect(row.getByTestId("backup-pinned")).toHaveText("Compaction preparation");

  // Keyboard only: focus the row's Delete button and open the panel with Enter.
  await row.getByTestId("backup-delete").focus();
  await page.keyboard.press("Enter");
  const panel = page.getByTestId("pinned-delete-confirm");
  await expect(panel).toContainText("needs a new preparation");
  // The consequence before the commit: the file, what is left, compaction, no undo.
  const consequences = panel.getByTestId("backup-delete-consequences");
  const listed = (await (await page.request.get(`${server.baseURL}/api/v1/system/database/backups`)).json()) as { backups: { name: string; sizeBytes: number }[] };
  const entry = listed.backups.find((b) => b.name === name)!;
  await expect(consequences.locator('[data-consequence="removed"]')).toContainText(`${name} (${formatBytes(entry.sizeBytes, "en")})`);
  await expect(consequences.locator('[data-consequence="left"]')).toContainText(listed.backups.length === 1 ? "No other backup" : "other backup");
  await expect(consequences.locator('[data-consequence="undo"]')).toContainText("cannot be brought back");
  const input = panel.getByTestId("pinned-delete-input");
  await expect(input).toBeFocused();
  const button = panel.getByTestId("pinned-delete-button");
  await expect(button).toBeDisabled();
  await page.keyboard.type(name.slice(0, -1));
  await expect(button).toBeDisabled();
  await page.keyboard.type(name.slice(-1));
  await expect(button).toBeEnabled();
  await expectTouchTargetsIn(panel);
  await expectNoViolations(page, "[data-testid=backups-card]");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`pinned-backup-delete-${testInfo.project.name}.png`), fullPage: false });

  // Cancel first: nothing is deleted, the status and the list read back the same.
  const status = await (await page.request.get(`${server.baseURL}${STATUS_PATH}`)).json();
  await panel.getByRole("button", { name: "Cancel" }).click();
  await expect(panel).toHaveCount(0);
  expect(await (await page.request.get(`${server.baseURL}/api/v1/system/database/backups`)).json()).toEqual(listed);
  expect(await (await page.request.get(`${server.baseURL}${STATUS_PATH}`)).json()).toEqual(status);
  await row.getByTestId("backup-delete").click();
  await page.getByTestId("pinned-delete-input").fill(name);

  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().includes(`/backups/${name}?confirm=`) && r.request().method() === "DELETE"),
    page.keyboard.press("Enter"),
  ]);
  expect(response.status()).toBe(200);
  await expect(row).toHaveCount(0);
});
