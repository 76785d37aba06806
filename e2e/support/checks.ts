import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page } from "@playwright/test";

/**
 * axe finds no violation of any impact, minor and moderate included
 * (optionally within the elements named: a whole Database page takes axe
 * about 50 s on a phone at load 25, so a spec about some cards checks those
 * and e2e/accessibility.spec.ts checks each whole page once).
 */
export async function expectNoViolations(page: Page, include?: string | string[]): Promise<void> {
  const builder = new AxeBuilder({ page });
  for (const selector of typeof include === "string" ? [include] : (include ?? [])) builder.include(selector);
  const results = await builder.analyze();
  expect(results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** The older name: every caller now holds the stricter rule (no violation of any impact). */
export const expectNoSeriousViolations = expectNoViolations;

/**
 * No text is cut off: every cell, label, button, heading and paragraph
 * inside `scope` fits its box (scrollWidth <= clientWidth, 1 px for
 * rounding), nothing scrolls sideways, and the page itself is no wider than
 * the viewport. Returns nothing; fails with each offender's text and sizes.
 */
export async function expectNoClippedText(scope: Locator, what = ""): Promise<void> {
  const clipped = await scope.evaluate((root) => {
    const selector = "td, th, dt, dd, button, a, label, legend, p, li, h1, h2, h3, h4, caption, summary, [role=region], [data-stack] tbody tr";
    const out: string[] = [];
    const pageOverflow = document.documentElement.scrollWidth - document.documentElement.clientWidth;
    if (pageOverflow > 1) {
      out.push(`page is ${pageOverflow}px wider than the viewport`);
      // Name what sticks out (anywhere on the page): the innermost elements past the right edge.
      const edge = document.documentElement.clientWidth + 1;
      const past = [...document.body.querySelectorAll<HTMLElement>("*")].filter((el) => el.getBoundingClientRect().right > edge);
      for (const el of past.filter((el) => !past.some((other) => other !== el && el.contains(other))).slice(0, 5)) {
        const text = (el.innerText || el.getAttribute("aria-label") || "").trim().replace(/\s+/g, " ").slice(0, 50);
        out.push(`${el.tagName.toLowerCase()}.${el.className.toString().split(" ")[0] ?? ""} "${text}" ends at ${Math.round(el.getBoundingClientRect().right)}`);
      }
    }
    // A region that scrolls sideways hides part of its table behind a scroll.
    for (const el of root.querySelectorAll<HTMLElement>("div, section, ol, ul")) {
      const overflowX = getComputedStyle(el).overflowX;
      if ((overflowX === "auto" || overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1) {
        out.push(`${el.tagName.toLowerCase()}.${el.className.split(" ")[0] ?? ""} scrolls sideways ${el.scrollWidth}>${el.clientWidth}`);
      }
    }
    for (const el of root.querySelectorAll<HTMLElement>(selector)) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || el.getClientRects().length === 0) continue;
      // Visually hidden helpers (1 px, clipped) are not text anyone reads there.
      if (el.clientWidth <= 1 || el.clientHeight <= 1) continue;
      if (style.display === "inline") continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        out.push(`${el.tagName.toLowerCase()} "${(el.innerText || el.getAttribute("aria-label") || "").trim().replace(/\s+/g, " ").slice(0, 50)}" ${el.scrollWidth}>${el.clientWidth}`);
      }
    }
    return out;
  });
  expect(clipped, what).toEqual([]);
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
      // A radio or checkbox is pressed through its label: the label is the target.
      .map((el) => (el.matches("input[type=radio], input[type=checkbox]") ? (el.closest("label") ?? el) : el))
      .map((el) => ({ text: (el.textContent ?? el.getAttribute("aria-label") ?? "").trim().slice(0, 40), ...el.getBoundingClientRect().toJSON() }))
      .filter((r) => r.width < 44 || r.height < 44)
      .map((r) => `${r.text} ${Math.round(r.width)}x${Math.round(r.height)}`);
  });
  expect(small).toEqual([]);
}
