import "server-only";

/**
 * Restore and reset replace the database file under everything that holds a
 * connection to it. Long-lived users of the database (the runtime's
 * compaction worker) register in their runtime's registry so those
 * operations can stop them first and start them again afterwards
 * (TPR-SCH-06).
 */
export type Quiescer = {
  /** Resolves once the component holds no connection and runs no work. */
  stop(): Promise<void>;
  start(): void;
};

export type QuiescerRegistry = {
  /** Registers (or replaces) a quiescer by name; returns its unregister function. */
  register(name: string, quiescer: Quiescer): () => void;
  names(): string[];
  /**
   * Stops every registered component (in registration order) and returns
   * the function that starts the stopped ones again. If a stop fails, the
   * ones already stopped are restarted and the error propagates: the caller
   * must not replace the database under a component that is still running.
   */
  quiesceAll(): Promise<() => void>;
};

export function createQuiescerRegistry(): QuiescerRegistry {
  const registry = new Map<string, Quiescer>();
  return {
    register(name, quiescer) {
      registry.set(name, quiescer);
      return () => {
        if (registry.get(name) === quiescer) registry.delete(name);
      };
    },
    names: () => [...registry.keys()],
    async quiesceAll() {
      const stopped: Quiescer[] = [];
      try {
        for (const quiescer of registry.values()) {
          await quiescer.stop();
          stopped.push(quiescer);
        }
      } catch (error) {
        startAll(stopped);
        throw error;
      }
      return () => startAll(stopped);
    },
  };
}

function startAll(quiescers: Quiescer[]): void {
  for (const quiescer of quiescers) quiescer.start();
}
