import { z } from "zod";
import { clearedLockSchema, unverifiableLockSchema, type UnverifiableLockView } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { clearUnverifiableLock, lockAuditDetail } from "@/server/maintenance/unverifiable-lock";
import { EXIT, type ExitCode } from "../exit-codes";
import type { CommandEnv } from "./compaction";

const lockShowSchema = z.object({ unverifiableLock: unverifiableLockSchema.nullable() });

function describeLock(lock: UnverifiableLockView): string[] {
  return [
    `maintenance is held by lock ${lock.id} of host ${lock.host ?? "(unreadable)"}: ${lock.kind ?? "unknown operation"}, taken ${lock.acquiredAt ?? "at an unknown time"}`,
    "no process here can check whether it still runs; once nothing runs there:",
    `  lock clear --id ${lock.id} --confirm ${lock.host ?? lock.id}`,
  ];
}

/** The lock of another host that holds maintenance (what the Database page reports). */
export async function lockShowCommand(env: CommandEnv): Promise<ExitCode> {
  const lock = await env.rt.guard.unverifiableLock();
  env.out.result(lockShowSchema, { unverifiableLock: lock }, (body) => (body.unverifiableLock ? describeLock(body.unverifiableLock) : ["no maintenance lock of another host"]));
  return EXIT.done;
}

/** The same verb POST maintenance-lock/clear calls; audited as the command line's. */
export async function lockClearCommand(env: CommandEnv, options: { id: string; confirm: string }): Promise<ExitCode> {
  const { rt } = env;
  const detail = await lockAuditDetail(rt.guard);
  const cleared = await auditedAsync(rt, { actor: "cli", kind: "maintenance.lock_cleared", detail }, () =>
    clearUnverifiableLock({ guard: rt.guard, id: options.id, confirm: options.confirm, log: rt.log }),
  );
  env.out.result(clearedLockSchema, cleared, (body) => [`cleared maintenance lock ${body.cleared}`]);
  return EXIT.done;
}
