import { expect, test, type Page } from "@playwright/test";
import { ADMIN, VIEWER } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";
import { expectNoSeriousViolations, expectTouchTargetsIn } from "./support/checks";
import { screenshotPath } from "./support/screenshot-path";

// The storage card's history (the e2e server seeds the demo's 120 days):
// the chart with its maintenance markers, the data table behind it, the
// forecast, in every locale, on desktop and phone, for admins and viewers.

const LOCALES = ["en", "pt-pt", "zh-cn", "zh-hk", "zh-tw"] as const;

type Latest = { totalBytes: number };

async function latestSample(page: Page): Promise<Latest> {
  const body = (await (await page.request.get("/api/v1/system/database/history")).json()) as { latest: Latest };
  return body.latest;
}

const DECIMAL_UNITS: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };

/** An English size label back to bytes ("1.5 MB" is 1,500,000 B: the one decimal unit system). */
function parseSize(label: string): number {
  const match = /^([\d.,]+) (B|kB|MB|GB|TB)$/.exec(label.trim());
  if (!match) throw new Error(`not a size label: ${label}`);
  return Number(match[1]!.replace(/,/g, "")) * DECIMAL_UNITS[match[2]!]!;
}

/** The page settled: the history drew its chart (its data arrived), not a set time. */
async function openHistory(page: Page, locale: string): Promise<ReturnType<Page["getByTestId"]>> {
  await page.goto(`/${locale}${DATABASE_PATH}`);
  const history = page.getByTestId("storage-history");
  await expect(history.getByTestId("history-chart").locator("svg")).toBeVisible();
  await expect(history.getByTestId("history-marker").first()).toBeAttached();
  return history;
}

for (const locale of LOCALES) {
  test(`storage history in ${locale}: chart, markers, data table, forecast; axe clean`, async ({ page }, testInfo) => {
    await signIn(page, ADMIN, locale);
    const history = await openHistory(page, locale);
    const text = await history.innerText();
    expect(text).not.toMatch(/storageHistory\.[a-z]/);
    // The chart is an image with a summary for screen readers.
    await expect(history.getByRole("img")).toHaveAttribute("aria-label", /\d/);
    // The demo's operations are marked and listed with what they gave back (other specs on this
    // server run VACUUM and compaction too: each of theirs adds a real sample).
    expect(await history.locator('[data-testid=history-marker][data-trigger="compaction"]').count()).toBeGreaterThanOrEqual(2);
    expect(await history.locator('[data-testid=history-marker][data-trigger="checkpoint_cleanup"]').count()).toBeGreaterThanOrEqual(1);
    expect(await history.locator('[data-testid=history-marker][data-trigger="vacuum"]').count()).toBeGreaterThanOrEqual(1);
    await expect(history.getByTestId("history-event").first()).toContainText(/\d/);
    if (locale === "en") {
      // [#30] The size axis reads in decimal steps: each label is a whole multiple of the first step
      // (binary units labelled 500 kB, 1 MB, 1.5 MB would read 488 kB, 977 kB, 1.4 MB).
      const ticks = (await history.getByTestId("history-y-tick").allTextContents()).map(parseSize);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks).toEqual(ticks.map((_, i) => i * ticks[1]!));
    }

    // The data table, reached by keyboard: focus the disclosure, open it, tab into the table's region.
    const toggle = history.getByTestId("history-table-toggle");
    await history.getByTestId("history-range-400").focus();
    await page.keyboard.press("Tab");
    await expect(toggle).toBeFocused();
    expect(await toggle.evaluate((el) => el.matches(":focus-visible"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await page.keyboard.press("Tab");
    const region = history.getByTestId("history-table-region");
    await expect(region).toBeFocused();
    expect(await history.getByTestId("history-row").count()).toBeGreaterThan(100);

    // A size a little above today's: the demo's growth reaches it within weeks.
    const { totalBytes } = await latestSample(page);
    const target = history.getByTestId("forecast-target");
    await target.fill(((totalBytes * 1.4) / 1e9).toFixed(4).replace(".", locale === "pt-pt" ? "," : "."));
    await expect(history.getByTestId("forecast-result")).toHaveAttribute("data-state", "reaches");
    await expect(history.getByTestId("forecast-result")).toContainText(/\d/);
    await target.fill("0.000001");
    await expect(history.getByTestId("forecast-result")).toHaveAttribute("data-state", "reached");
    await target.fill("abc");
    await expect(history.getByTestId("forecast-result")).toHaveAttribute("data-state", "invalid");
    await expect(target).toHaveAttribute("aria-invalid", "true");
    await target.fill(((totalBytes * 1.4) / 1e9).toFixed(4));

    await expectNoSeriousViolations(page, "[data-testid=storage-history]");
    if (testInfo.project.name === "phone") {
      await expectTouchTargetsIn(history);
      // Nothing makes the page scroll sideways on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    }
    await region.evaluate((el) => el.scrollTo(0, 0));
    // The sticky page header would sit over a scrolled element's picture.
    await history.screenshot({ path: screenshotPath(`storage-history-${testInfo.project.name}-${locale}.png`), animations: "disabled", style: "header { position: static !important; }" });
  });
}

test("a viewer reads the history and forecasts; range buttons switch the days shown", async ({ page }) => {
  await signIn(page, VIEWER);
  const history = await openHistory(page, "en");
  await expect(history.getByTestId("history-range-120")).toHaveAttribute("aria-pressed", "true");
  await history.getByTestId("history-table-toggle").click();
  const rows120 = await history.getByTestId("history-row").count();
  await history.getByTestId("history-range-30").click();
  await expect(history.getByTestId("history-range-30")).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => history.getByTestId("history-row").count()).toBeLessThan(rows120);
  await expect(history.getByTestId("forecast-target")).toBeEditable();
  await expect(history.getByTestId("forecast-result")).toBeVisible();
  await expectNoSeriousViolations(page, "[data-testid=storage-history]");
});
