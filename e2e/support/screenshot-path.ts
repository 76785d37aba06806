// Review screenshots: every run writes them under test-results/screenshots/
// (CI artifacts); `UPDATE_SCREENSHOTS=1 npx playwright test` refreshes the
// committed set in e2e/__screenshots__/ deliberately, so ordinary runs leave
// the work tree clean.
export function screenshotPath(name: string): string {
  const dir = process.env.UPDATE_SCREENSHOTS === "1" ? "e2e/__screenshots__" : "test-results/screenshots";
  return `${dir}/${name}`;
}
