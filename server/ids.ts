import { randomUUID } from "node:crypto";

/** Mints identities (operation ids, run ids). Injected so tests can predict them. */
export type IdGenerator = () => string;

export const randomIds: IdGenerator = () => randomUUID();

/** Deterministic ids for tests: prefix-1, prefix-2, ... */
export function sequentialIds(prefix = "id"): IdGenerator {
  let n = 0;
  return () => `${prefix}-${++n}`;
}
