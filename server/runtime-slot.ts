// The process keeps its runtime in one registered global slot: Next loads
// instrumentation, proxy.ts and each route bundle as separate module graphs,
// and dev reloads re-evaluate modules, yet all of them must find the same
// runtime. The slot is the one process-wide thing the runtime cannot own (it
// is how the runtime is found), so it holds only that: the installed runtime
// and the start in progress. This module holds only the slot, so proxy.ts can
// reach the runtime's logger without bundling the database code.
import type { Runtime } from "./runtime-types";

type ProcessSlot = {
  runtime?: Runtime;
  /** The start in progress (startup.ts), so concurrent first requests wait for one runtime. */
  startup?: Promise<Runtime | null>;
};

const slotKey = Symbol.for("agent-storage.process-runtime");
type GlobalWithSlot = typeof globalThis & { [slotKey]?: ProcessSlot };

function slot(): ProcessSlot {
  const g = globalThis as GlobalWithSlot;
  return (g[slotKey] ??= {});
}

/** The runtime this process serves with, if one was installed. */
export function processRuntime(): Runtime | undefined {
  return slot().runtime;
}

/** Makes `rt` the runtime route handlers receive (startup, route tests). */
export function installProcessRuntime(rt: Runtime): void {
  slot().runtime = rt;
}

/** Removes `rt` from the process slot if it is still the one installed. */
export function uninstallProcessRuntime(rt: Runtime): void {
  const current = slot();
  if (current.runtime === rt) delete current.runtime;
}

/** The start in progress (startup.ts), so concurrent first requests wait for one runtime. */
export function processStartup(): Promise<Runtime | null> | undefined {
  return slot().startup;
}

export function setProcessStartup(starting: Promise<Runtime | null> | null): void {
  const current = slot();
  if (starting) current.startup = starting;
  else delete current.startup;
}
