// Deterministic digest of a materialized conversation: what full and delta
// modes must agree on for the same script.
import { createHash } from "node:crypto";
import type { AgentValues } from "./schema";
import { viewValues } from "./view";

export function digestValues(values: AgentValues): string {
  const view = viewValues(values);
  const canonical = JSON.stringify({ messages: view.messages, title: view.title, notes: values.notes });
  return createHash("sha256").update(canonical).digest("hex");
}
