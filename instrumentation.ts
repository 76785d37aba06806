// Runs once per server process before requests are served. Startup work is
// idempotent on globalThis (dev reloads call register() again) and never
// blocks boot: a failure is logged and the server still starts.
const startedKey = Symbol.for("workspace-retention.instrumentation");

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const g = globalThis as typeof globalThis & { [startedKey]?: boolean };
  if (g[startedKey]) return;
  g[startedKey] = true;
  const { startServerProcess } = await import("./server/startup");
  startServerProcess();
}
