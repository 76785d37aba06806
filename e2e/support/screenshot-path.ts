import { expect, type Page } from "@playwright/test";

// Review screenshots: every run writes them under test-results/screenshots/
// (CI artifacts); `UPDATE_SCREENSHOTS=1 npx playwright test` refreshes the
// committed set in e2e/__screenshots__/ deliberately, so ordinary runs leave
// the work tree clean.
export function screenshotPath(name: string): string {
  const dir = process.env.UPDATE_SCREENSHOTS === "1" ? "e2e/__screenshots__" : "test-results/screenshots";
  return `${dir}/${name}`;
}

/**
 * A full-page review screenshot once the page has settled: no card still
 * loading, scrolled to the top, the header not sticky. One CSS pixel per
 * image pixel: at the phone's device scale of 3 a long page is nine times
 * the pixels, and encoding that on two loaded cores is what made a
 * screenshot outlast its test.
 */
export async function fullPageScreenshot(page: Page, name: string): Promise<void> {
  await expect(page.locator("[data-loading]")).toHaveCount(0);
  // The sticky header would be painted over the page where the capture stitches it.
  await page.addStyleTag({ content: "header { position: static !important; }" });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath(name), fullPage: true, scale: "css", animations: "disabled" });
}
