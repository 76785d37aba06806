import { defineConfig, devices } from "@playwright/test";
import { E2E_PORT } from "./e2e/support/accounts";

const chromium = {
  // Browser downloads are impossible on these machines: drive Debian's Chromium.
  executablePath: "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  // Bounds for two cores shared with other work (load 15 to 40 measured):
  // there a Database page's first reads took over 10 s and a test of a few
  // pages over 60 s. Every wait is for a state, so these only bound a failure.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    trace: "retain-on-failure",
    launchOptions: chromium,
  },
  projects: [
    {
      name: "desktop",
      testIgnore: /phone-.*\.spec\.ts/,
      use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 }, launchOptions: chromium },
    },
    {
      name: "phone",
      // API-level and layout-independent specs run once, in the desktop project.
      testIgnore: /(api|desktop)-.*\.spec\.ts/,
      use: {
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
        userAgent: devices["Pixel 7"].userAgent,
        launchOptions: chromium,
      },
    },
  ],
  webServer: {
    command: "npx tsx --conditions=react-server scripts/e2e-server.ts",
    wait: { stdout: /e2e-server: ready/ },
    // Build + start on 2 cores: a few minutes idle, over 9 at load 12 to 14.
    timeout: 900_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
  },
});
