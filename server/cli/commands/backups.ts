import { backupReceiptSchema, backupsResponseSchema, backupVerificationSchema } from "@/lib/database/api";
import { auditedAsync } from "@/server/audit/record";
import { allPinnedBackupNames } from "@/server/checkpoints/schedule/pinned-backup";
import { getCompactionStatus } from "@/server/compaction/service";
import { listBackups, MANUAL_BACKUPS_KEPT } from "@/server/maintenance/backups/catalog";
import { createBackup } from "@/server/maintenance/backups/create";
import { verifyBackupByName } from "@/server/maintenance/backups/verify";
import { EXIT, type ExitCode } from "../exit-codes";
import { describeBytes } from "../status-lines";
import type { CommandEnv } from "./compaction";

/** The same verb POST /backups calls: under the shared guard, synchronous; audited as the command line's. */
export async function backupCreateCommand(env: CommandEnv): Promise<ExitCode> {
  const { rt } = env;
  env.out.note("creating a backup (snapshot, integrity check, hash)...");
  const receipt = await auditedAsync(rt, { actor: "cli", kind: "backup.created", detail: (created) => ({ backupName: created.name }) }, async () =>
    createBackup({
      store: rt.stores.maintenance,
      dbFile: rt.dbFile,
      clock: rt.clock,
      label: "manual",
      guard: rt.guard,
      log: rt.log,
      pinned: await allPinnedBackupNames(rt.stores),
    }),
  );
  env.out.result(backupReceiptSchema, receipt, (r) => [`created ${r.name}: ${describeBytes(r.sizeBytes)}, sha256 ${r.sha256}, ${r.completedAt}`]);
  return EXIT.done;
}

export async function backupListCommand(env: CommandEnv): Promise<ExitCode> {
  const backups = await listBackups({ dbFile: env.rt.dbFile });
  env.out.result(backupsResponseSchema, { capability: "supported", backups, keep: MANUAL_BACKUPS_KEPT }, (body) =>
    body.backups.length === 0
      ? [`no backups (the newest ${body.keep} are kept)`]
      : [...body.backups.map((b) => `${b.name}  ${describeBytes(b.sizeBytes)}  ${b.createdAt}`), `(the newest ${body.keep} are kept)`],
  );
  return EXIT.done;
}

/** 0 when the backup is sound, 1 when it is missing, changed or corrupt. */
export async function backupVerifyCommand(env: CommandEnv, name: string): Promise<ExitCode> {
  const receipt = (await getCompactionStatus(env.rt)).preparation.receipt;
  const result = await verifyBackupByName({
    store: env.rt.stores.maintenance,
    dbFile: env.rt.dbFile,
    name,
    receipt: receipt && "sha256" in receipt ? receipt : null,
  });
  env.out.result(backupVerificationSchema, result, (r) => [
    r.ok ? `${r.name}: ok, ${r.sizeBytes === null ? "size unknown" : describeBytes(r.sizeBytes)}, sha256 ${r.sha256}${r.receipt === "matched" ? ", matches the preparation receipt" : ""}` : `${r.name}: not usable (${r.code})`,
  ]);
  return result.ok ? EXIT.done : EXIT.failed;
}
