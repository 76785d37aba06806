import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELETE as backupDelete } from "@/app/api/v1/system/database/backups/[name]/route";
import { GET as backupsList, POST as backupsCreate } from "@/app/api/v1/system/database/backups/route";
import { MANUAL_BACKUPS_KEPT } from "@/server/maintenance/backups/catalog";
import { AS_ADMIN, apiRequest, setUpRouteTestEnv, type RouteTestEnv } from "@/server/http/route-test-support";
import { updateCompactionRecord } from "./policy/record";

let env: RouteTestEnv;
beforeEach(async () => {
  env = await setUpRouteTestEnv("pinned-backup-");
});
afterEach(() => env.dispose());

const BACKUPS = "/api/v1/system/database/backups";
const PINNED = "workspace-2020-01-01T00-00-00Z-00000000.db";
const backupsDir = () => path.join(path.dirname(env.rt.handle.file), "backups");

async function createManualBackup(): Promise<string> {
  const res = await backupsCreate(apiRequest("POST", BACKUPS, AS_ADMIN, {}));
  expect(res.status).toBe(201);
  return ((await res.json()) as { name: string }).name;
}

/** A published backup renamed to the oldest name, recorded as the approved preparation's receipt. */
async function pinPreparationBackup(): Promise<void> {
  const name = await createManualBackup();
  fs.renameSync(path.join(backupsDir(), name), path.join(backupsDir(), PINNED));
  await updateCompactionRecord(env.rt.stores.compaction, {
    nowMs: env.rt.clock.now(),
    mutate: (record) => {
      record.policy = { ...record.policy, enabled: true };
      record.runtime.preparation = {
        state: "ready",
        choice: "backup",
        revision: 1,
        operationId: "prep-1",
        receipt: { name: PINNED, sizeBytes: 1, completedAt: "2020-01-01T00:00:00Z", sha256: "0".repeat(64) },
        errorCode: null,
      };
      record.runtime.approvedRevision = 1;
      return record;
    },
  });
}

describe("the preparation backup is pinned while it is the approval's receipt", () => {
  it("[TPR-PREP-04] manual-backup rotation skips the pinned receipt", async () => {
    await pinPreparationBackup();
    for (let i = 0; i < MANUAL_BACKUPS_KEPT; i += 1) await createManualBackup();
    const files = fs.readdirSync(backupsDir()).filter((name) => name.endsWith(".db"));
    expect(files).toContain(PINNED);
    expect(files).toHaveLength(MANUAL_BACKUPS_KEPT + 1);
    // The list marks it, so the backups card can ask for the typed name up front.
    const listed = (await (await backupsList(apiRequest("GET", BACKUPS, AS_ADMIN))).json()) as { backups: Array<{ name: string; pinned: boolean }> };
    expect(listed.backups.filter((backup) => backup.pinned).map((backup) => backup.name)).toEqual([PINNED]);
  });

  it("[TPR-PREP-04] deleting the pinned backup needs its name typed; then it is deleted", async () => {
    await pinPreparationBackup();
    const url = `${BACKUPS}/${PINNED}`;
    const withName = { params: Promise.resolve({ name: PINNED }) };
    const refused = await backupDelete(apiRequest("DELETE", url, AS_ADMIN), withName);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe("backup_pinned");
    const wrong = await backupDelete(apiRequest("DELETE", `${url}?confirm=nope`, AS_ADMIN), withName);
    expect(wrong.status).toBe(409);
    expect(fs.existsSync(path.join(backupsDir(), PINNED))).toBe(true);
    const confirmed = await backupDelete(apiRequest("DELETE", `${url}?confirm=${PINNED}`, AS_ADMIN), withName);
    expect(confirmed.status).toBe(200);
    expect(fs.existsSync(path.join(backupsDir(), PINNED))).toBe(false);
  });
});
