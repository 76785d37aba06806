// The thread view's run-handle column in every locale, desktop and phone:
// the e2e server seeds threads whose run handles are valid (issued now, held
// for CHECKPOINT_HANDLE_TTL_DAYS) and a regenerated thread written past the
// time to live (its handles expired). Each column cell names the state in
// the reader's language, with the date; on a phone the stacked row card
// labels the cell with the column's name and stays inside the screen.
import { expect, test, type Page } from "@playwright/test";
import { VIEWER } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";
import { expectNoSeriousViolations } from "./support/checks";
import { screenshotPath } from "./support/screenshot-path";

// The catalogs' texts (messages/checkpoints/*.json, thread.handle and
// thread.columns.handle) as the reader sees them, before the date.
const LOCALES = [
  { locale: "en", column: "Run handle", held: /^Held until \S/, expired: /^Expired \S/ },
  { locale: "pt-pt", column: "Identificador de execução", held: /^Guardado até \S/, expired: /^Expirou em \S/ },
  { locale: "zh-cn", column: "运行句柄", held: /^保留至 \S/, expired: /^已于 .+ 过期$/ },
  { locale: "zh-hk", column: "執行控制代碼", held: /^保留至 \S/, expired: /^已於 .+ 過期$/ },
  { locale: "zh-tw", column: "執行控制代碼", held: /^保留至 \S/, expired: /^已於 .+ 過期$/ },
] as const;

/** Opens every turn of the page shown (each is a disclosure button), so each checkpoint row is rendered. */
async function openAllTurns(page: Page): Promise<void> {
  const turns = page.getByTestId("thread-turn");
  await expect(turns.first()).toBeVisible();
  const total = await turns.count();
  const closed = turns.getByRole("button", { expanded: false });
  for (let left = await closed.count(); left > 0 && total > 0; left--) {
    await closed.first().click();
    await expect(closed).toHaveCount(left - 1);
  }
  await expect(closed).toHaveCount(0);
}

/** The seeded threads' view paths, from the largest-threads table. */
async function threadPaths(page: Page, locale: string): Promise<string[]> {
  await page.goto(`/${locale}${DATABASE_PATH}`);
  const links = page.getByTestId("checkpoint-largest-threads").getByRole("link");
  await expect(links.first()).toBeVisible();
  const hrefs = await links.evaluateAll((all) => all.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  return hrefs.map((href) => href.replace(new RegExp(`^/${locale}`), ""));
}

for (const l of LOCALES) {
  test(`run-handle column in ${l.locale}: held until a date, expired past its time to live`, async ({ page }, testInfo) => {
    // Every turn is opened by a click and each thread checked by axe: minutes on two loaded cores.
    test.setTimeout(240_000);
    await signIn(page, VIEWER, l.locale);
    const paths = await threadPaths(page, l.locale);
    expect(paths.length).toBeGreaterThan(1);
    const seen = { held: 0, expired: 0 };
    for (const [i, path] of paths.entries()) {
      await page.goto(`/${l.locale}${path}`);
      await expect(page.getByTestId("thread-summary")).toBeVisible();
      await openAllTurns(page);
      const held = page.getByTestId("thread-handle-held");
      const expired = page.getByTestId("thread-handle-expired");
      const counts = { held: await held.count(), expired: await expired.count() };
      if (counts.held === 0 && counts.expired === 0) continue;
      for (const [state, cells, pattern] of [
        ["held", held, l.held],
        ["expired", expired, l.expired],
      ] as const) {
        if (counts[state] === 0) continue;
        seen[state] += counts[state];
        const cell = cells.first();
        await expect(cell).toHaveText(pattern);
        // The cell sits in the column named for handles (a phone shows the name in the stacked card).
        await expect(cell.locator("xpath=ancestor::td[1]")).toHaveAttribute("data-label", l.column);
        await cell.scrollIntoViewIfNeeded();
        const box = (await cell.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
        // The row (a card on a phone) holding the first cell of each state, to look at.
        await cell.locator("xpath=ancestor::tr[1]").screenshot({ path: screenshotPath(`thread-handles-${testInfo.project.name}-${l.locale}-${state}-${i}.png`) });
      }
      await expectNoSeriousViolations(page, "[data-testid=thread-view]");
      // Both states seen and checked: the remaining threads would repeat it.
      if (seen.held > 0 && seen.expired > 0) break;
    }
    // The seed holds both: threads of valid handles and the regenerated thread past its time to live.
    expect(seen.held).toBeGreaterThan(0);
    expect(seen.expired).toBeGreaterThan(0);
  });
}
