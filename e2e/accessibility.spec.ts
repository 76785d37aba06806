import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { signIn } from "./support/auth";

async function expectNoSeriousViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** Every visible control is at least 44 x 44 CSS pixels. */
async function expectTouchTargets(page: Page): Promise<void> {
  const small = await page.evaluate(() => {
    const controls = document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, summary");
    return [...controls]
      .filter((el) => {
        const style = getComputedStyle(el);
        const rect = el.getBoundingClientRect();
        // Skip links and visually hidden helpers are not on screen until focused.
        return style.visibility !== "hidden" && rect.width > 1 && rect.height > 1 && rect.top >= 0;
      })
      .map((el) => ({ text: (el.textContent ?? el.getAttribute("aria-label") ?? el.id).trim().slice(0, 40), ...el.getBoundingClientRect().toJSON() }))
      .filter((r) => r.width < 44 || r.height < 44)
      .map((r) => `${r.text} ${Math.round(r.width)}x${Math.round(r.height)}`);
  });
  expect(small).toEqual([]);
}

test("sign-in page has no serious accessibility violations", async ({ page }) => {
  await page.goto("/en/sign-in");
  await expectNoSeriousViolations(page);
  await page.goto("/zh-hk/sign-in");
  await expectNoSeriousViolations(page);
});

test("Database page has no serious accessibility violations", async ({ page }) => {
  await signIn(page, ADMIN);
  await expectNoSeriousViolations(page);
});

test("keyboard focus is visible on the sign-in form", async ({ page }) => {
  await page.goto("/en/sign-in");
  await page.locator("#email").focus();
  const outline = await page.locator("#email").evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).not.toBe("none");
});
