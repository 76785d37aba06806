// What the card calls the saved policy's state. "Preparing" (a backup still
// pending or running) is never "Enabled".
import type { CompactionStatusBody } from "@/lib/compaction/api";

export type PolicyState = "off" | "preparing" | "failed" | "enabled" | "awaiting";

export function policyState(status: CompactionStatusBody): PolicyState {
  if (!status.policy.enabled) return "off";
  const prep = status.preparation.state;
  if (prep === "pending" || prep === "running") return "preparing";
  if (prep === "failed") return "failed";
  return status.armed ? "enabled" : "awaiting";
}
