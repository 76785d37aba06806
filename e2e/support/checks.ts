import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page } from "@playwright/test";

/** axe finds no serious or critical violation (optionally within one element). */
export async function expectNoSeriousViolations(page: Page, include?: string): Promise<void> {
  const builder = new AxeBuilder({ page });
  if (include) builder.include(include);
  const results = await builder.analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** Every visible control inside `scope` is at least 44 x 44 CSS pixels. */
export async function expectTouchTargetsIn(scope: Locator): Promise<void> {
  const small = await scope.evaluate((root) => {
    const controls = root.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, summary");
    return [...controls]
      .filter((el) => {
        const rect = el.getBoundingClientRect();
        // Skip links sit off screen (negative top) until focused.
        return getComputedStyle(el).visibility !== "hidden" && rect.width > 1 && rect.height > 1 && rect.top + window.scrollY >= 0;
      })
      .map((el) => ({ text: (el.textContent ?? el.getAttribute("aria-label") ?? "").trim().slice(0, 40), ...el.getBoundingClientRect().toJSON() }))
      .filter((r) => r.width < 44 || r.height < 44)
      .map((r) => `${r.text} ${Math.round(r.width)}x${Math.round(r.height)}`);
  });
  expect(small).toEqual([]);
}
