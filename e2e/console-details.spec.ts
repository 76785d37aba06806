// Issue 30's smaller findings on the shared e2e server, desktop and phone:
// unknown API paths answer the JSON error body, the favicon is served, the
// Storage card's first load says it is loading (not "Refreshing…"), and the
// compaction card is as wide as its neighbours.
import { expect, test } from "@playwright/test";
import { ADMIN } from "./support/accounts";
import { DATABASE_PATH, signIn } from "./support/auth";

test("[#30] an unknown /api path answers 404 with the JSON error body, whatever the method", async ({ request }) => {
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"] as const) {
    for (const path of ["/api/v1/no-such-thing", "/api/v1/tasks/x/nothing-here", "/api/elsewhere"]) {
      const response = await request.fetch(path, { method, headers: { origin: "http://localhost" }, data: method === "GET" ? undefined : {} });
      expect(response.status(), `${method} ${path}`).toBe(404);
      expect(response.headers()["content-type"], `${method} ${path}`).toContain("application/json");
      expect(response.headers()["cache-control"]).toContain("no-store");
      expect(await response.json()).toEqual({ error: { code: "not_found", message: "No API endpoint at this path" } });
    }
  }
  // A known path keeps its own answer.
  expect((await request.get("/api/v1/auth/me")).status()).toBe(401);
});

test("[#30] the favicon is served, and pages load without a failed request", async ({ page, request }) => {
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/image\//);
  const failed: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400 && !response.url().includes("/api/v1/auth/me")) failed.push(`${response.status()} ${response.url()}`);
  });
  await signIn(page, ADMIN);
  await expect(page.locator("[data-loading]")).toHaveCount(0);
  await expect(page.locator('link[rel="icon"]').first()).toHaveAttribute("href", /icon|favicon/);
  expect(failed).toEqual([]);
});

test("[#30] on first load the Storage card says it is loading, and Refresh does not read Refreshing", async ({ page }) => {
  await signIn(page, ADMIN);
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/v1/system/database/stats", async (route) => {
    await held;
    await route.fallback();
  });
  await page.reload();
  const card = page.getByTestId("stats-card");
  await expect(card.locator("[data-loading]")).toBeVisible();
  await expect(card.locator("[data-loading]")).toContainText("Loading");
  const refresh = card.getByRole("button", { name: "Refresh" });
  await expect(refresh).toBeDisabled();
  await expect(card).not.toContainText("Refreshing");
  release();
  await expect(page.getByTestId("stat-file-size")).toHaveText(/\d/);
  await expect(refresh).toBeEnabled();
  await page.unroute("**/api/v1/system/database/stats");
});

test("[#30] the compaction card is as wide as the cards beside it", async ({ page }) => {
  await signIn(page, ADMIN);
  await expect(page.getByTestId("stat-file-size")).toHaveText(/\d/);
  await expect(page.getByTestId("retention-state")).toBeVisible();
  const width = async (testId: string) => Math.round((await page.getByTestId(testId).boundingBox())?.width ?? 0);
  await expect.poll(() => width("retention-card")).toBe(await width("stats-card"));
  await expect.poll(() => width("checkpoint-storage-card")).toBe(await width("stats-card"));
  await page.goto(`/pt-pt${DATABASE_PATH}`);
  await expect(page.getByTestId("retention-state")).toBeVisible();
  await expect.poll(() => width("retention-card")).toBe(await width("backups-card"));
});
