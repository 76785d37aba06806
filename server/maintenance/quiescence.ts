import "server-only";

/**
 * Restore and reset replace the database file under everything that holds a
 * connection to it. Long-lived users of the database (the retention worker,
 * registered by its own module) register here so those operations can stop
 * them first and start them again afterwards (TPR-SCH-06).
 */
export type Quiescer = {
  /** Resolves once the component holds no connection and runs no work. */
  stop(): Promise<void>;
  start(): void;
};

type Registry = Map<string, Quiescer>;

const registryKey = Symbol.for("workspace-retention.quiescers");
type GlobalWithRegistry = typeof globalThis & { [registryKey]?: Registry };

function registry(): Registry {
  const g = globalThis as GlobalWithRegistry;
  g[registryKey] ??= new Map();
  return g[registryKey];
}

/** Registers (or replaces) a quiescer by name; returns its unregister function. */
export function registerQuiescer(name: string, quiescer: Quiescer): () => void {
  registry().set(name, quiescer);
  return () => {
    if (registry().get(name) === quiescer) registry().delete(name);
  };
}

export function registeredQuiescers(): string[] {
  return [...registry().keys()];
}

/**
 * Stops every registered component (in registration order) and returns the
 * function that starts the stopped ones again. If a stop fails, the ones
 * already stopped are restarted and the error propagates: the caller must
 * not replace the database under a component that is still running.
 */
export async function quiesceAll(): Promise<() => void> {
  const stopped: Quiescer[] = [];
  try {
    for (const quiescer of registry().values()) {
      await quiescer.stop();
      stopped.push(quiescer);
    }
  } catch (error) {
    startAll(stopped);
    throw error;
  }
  return () => startAll(stopped);
}

function startAll(quiescers: Quiescer[]): void {
  for (const quiescer of quiescers) quiescer.start();
}
