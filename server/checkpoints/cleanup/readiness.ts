// Whether checkpoint Clean up may start: only on a succeeded analysis of the
// current state. "Current" is checked the cheap way the status already pays
// for: both tables' row counts and payload bytes still equal what the
// analysis found when it started (and did not change while it ran), and no
// cleanup ran after it. A run, a regenerate or a cleanup changes them.
import type { ActiveOperation, CleanupReadiness, RetentionResult, TableUsage } from "@/lib/checkpoints/api";

type Tables = { checkpoints: TableUsage; writes: TableUsage };

function sameTables(a: Tables, b: Tables): boolean {
  return (
    a.checkpoints.rows === b.checkpoints.rows &&
    a.checkpoints.bytes === b.checkpoints.bytes &&
    a.writes.rows === b.writes.rows &&
    a.writes.bytes === b.writes.bytes
  );
}

function reclaims(result: RetentionResult): boolean {
  const { before, after } = result;
  return before.checkpoints > after.checkpoints || before.writes > after.writes;
}

export function cleanupReadiness(options: { result: RetentionResult | null; tables: Tables | null; active: ActiveOperation | null }): CleanupReadiness {
  const { result, tables, active } = options;
  const not = (reason: Exclude<CleanupReadiness["reason"], "ready">): CleanupReadiness => ({ reason, analysisId: null });
  if (active) return not("running");
  if (!result) return not("no_analysis");
  if (result.kind === "cleanup") return not("after_cleanup");
  if (result.state !== "succeeded") return not("analysis_incomplete");
  if (!result.tablesAtStart || result.changedDuringScan || !tables || !sameTables(result.tablesAtStart, tables)) return not("changed");
  if (!reclaims(result)) return not("nothing_to_reclaim");
  return { reason: "ready", analysisId: result.operationId };
}
