// Reads and writes the one Messages compaction settings record.
//
// Reads never throw on bad stored data: a malformed record is a typed state
// that blocks every deletion and that status can show. Writes run inside the
// store's writer transaction and compare-and-swap on policy.revision, so two
// administrators cannot silently overwrite each other, and so a cleanup
// batch that re-reads the record in its own writer transaction sees every
// committed policy change.
import "server-only";
import { AppError } from "@/server/errors";
import type { CompactionStore } from "../store";
import {
  createDefaultRecord,
  policyChoiceChanged,
  compactionRecordSchema,
  type CompactionRecord,
} from "./policy-schema";

export type CompactionRead =
  | { state: "ok"; record: CompactionRecord }
  | { state: "missing"; record: CompactionRecord }
  | { state: "malformed"; errorCode: "settings_malformed" };

export type RecordTxContext = {
  current: CompactionRead;
  /** Validates, fixes the revision and stores `next`; returns what was stored. */
  write(next: CompactionRecord, nowMs: number): Promise<CompactionRecord>;
};

export type UpdateOptions = {
  /** When given, the stored policy.revision must equal it (else `conflict`). */
  expectedRevision?: number;
  /** Receives a private copy of the current record; returns the next one. */
  mutate(current: CompactionRecord): CompactionRecord;
  nowMs: number;
  /** "reset" lets an administrator replace a malformed record, starting from defaults. */
  onMalformed?: "fail" | "reset";
};

export type UpdateResult = { record: CompactionRecord; previous: CompactionRecord | null; policyChanged: boolean };

/** The record in stored text, or null when it is not a valid version-1 record. */
export function parseCompactionRecord(text: string): CompactionRecord | null {
  let raw: unknown;
  try {
    // The settings record holds only our own small integers and strings, so
    // plain JSON.parse is exact here (unlike message metadata).
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = compactionRecordSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

function readFromText(text: string | null): CompactionRead {
  if (text === null) return { state: "missing", record: createDefaultRecord() };
  const record = parseCompactionRecord(text);
  return record ? { state: "ok", record } : { state: "malformed", errorCode: "settings_malformed" };
}

/** Reads the record. Missing means defaults (disabled); malformed is reported, never thrown. */
export async function readCompactionRecord(store: CompactionStore): Promise<CompactionRead> {
  return readFromText(await store.readRecordText());
}

// A malformed record may still carry a readable revision; continuing above
// it keeps revisions monotonic across a reset, and it is the revision an
// administrator's replacement names in `expectedRevision`.
export function salvageRevision(text: string | null): number {
  if (text === null) return 0;
  try {
    const revision = (JSON.parse(text) as { policy?: { revision?: unknown } })?.policy?.revision;
    return Number.isSafeInteger(revision) && (revision as number) >= 0 ? (revision as number) : 0;
  } catch {
    return 0;
  }
}

/**
 * Gives `fn` the current record and a writer for callers that already hold
 * the writer transaction (cleanup batches re-check revision and approval
 * here before touching messages).
 */
export async function withCompactionRecordInTx<T>(tx: CompactionStore, fn: (ctx: RecordTxContext) => Promise<T> | T): Promise<T> {
  if (!tx.inWriteTransaction()) throw new Error("withCompactionRecordInTx needs an open writer transaction");
  const storedText = await tx.readRecordText();
  const current = readFromText(storedText);
  const previous = current.state === "malformed" ? null : current.record;
  const baseRevision = previous ? previous.policy.revision : salvageRevision(storedText);
  const write = async (next: CompactionRecord, nowMs: number): Promise<CompactionRecord> => {
    const validated = compactionRecordSchema.parse(next);
    // The revision is ours to assign: +1 on every change of the chosen
    // policy (or on replacing a malformed record), otherwise unchanged.
    const changed = current.state === "malformed" || (previous !== null && policyChoiceChanged(previous.policy, validated.policy));
    validated.policy.revision = changed ? baseRevision + 1 : baseRevision;
    await tx.writeRecordText({ text: JSON.stringify(validated), nowMs });
    return validated;
  };
  return fn({ current, write });
}

/** Compare-and-swap update of the record in its own IMMEDIATE writer transaction. */
export async function updateCompactionRecord(store: CompactionStore, options: UpdateOptions): Promise<UpdateResult> {
  return store.writeTransaction((tx) =>
    withCompactionRecordInTx(tx, async ({ current, write }) => {
      let base: CompactionRecord;
      if (current.state === "malformed") {
        if (options.onMalformed !== "reset") {
          throw new AppError("settings_malformed", "The stored Messages compaction settings are malformed.");
        }
        // The replacement is compare-and-swapped on the revision status shows
        // for the malformed record, like any other save.
        const revision = salvageRevision(await tx.readRecordText());
        if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
          throw new AppError("conflict", "The policy was changed by someone else; reload and try again.", { revision });
        }
        base = createDefaultRecord();
      } else {
        base = current.record;
        if (options.expectedRevision !== undefined && options.expectedRevision !== base.policy.revision) {
          throw new AppError("conflict", "The policy was changed by someone else; reload and try again.", {
            revision: base.policy.revision,
          });
        }
      }
      const previous = current.state === "malformed" ? null : current.record;
      const record = await write(options.mutate(structuredClone(base)), options.nowMs);
      const policyChanged = previous === null ? current.state === "malformed" : previous.policy.revision !== record.policy.revision;
      return { record, previous, policyChanged };
    }),
  );
}
