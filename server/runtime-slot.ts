// The process keeps its runtime in one registered global slot: Next loads
// instrumentation, proxy.ts and each route bundle as separate module graphs,
// and dev reloads re-evaluate modules, yet all of them must find the same
// runtime. This module holds only the slot, so proxy.ts can reach the
// runtime's logger without bundling the database code.
import type { Runtime } from "./runtime";

const runtimeKey = Symbol.for("workspace-retention.runtime");
const startupKey = Symbol.for("workspace-retention.runtime-startup");
type GlobalWithRuntime = typeof globalThis & { [runtimeKey]?: Runtime; [startupKey]?: Promise<Runtime | null> };

/** The runtime this process serves with, if one was installed. */
export function processRuntime(): Runtime | undefined {
  return (globalThis as GlobalWithRuntime)[runtimeKey];
}

/** Makes `rt` the runtime route handlers receive (startup, route tests). */
export function installProcessRuntime(rt: Runtime): void {
  (globalThis as GlobalWithRuntime)[runtimeKey] = rt;
}

/** Removes `rt` from the process slot if it is still the one installed. */
export function uninstallProcessRuntime(rt: Runtime): void {
  const g = globalThis as GlobalWithRuntime;
  if (g[runtimeKey] === rt) delete g[runtimeKey];
}

/** The start in progress (startup.ts), so concurrent first requests wait for one runtime. */
export function processStartup(): Promise<Runtime | null> | undefined {
  return (globalThis as GlobalWithRuntime)[startupKey];
}

export function setProcessStartup(starting: Promise<Runtime | null> | null): void {
  const g = globalThis as GlobalWithRuntime;
  if (starting) g[startupKey] = starting;
  else delete g[startupKey];
}
