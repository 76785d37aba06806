// The settings record and the schema version, for SQLite.
import "server-only";
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import { COMPACTION_SETTINGS_KEY } from "../policy/policy-schema";
import type { CompactionVerbs } from "../store";

const SELECT_RECORD = "SELECT value FROM settings WHERE key = ?";
const UPSERT_RECORD = `INSERT INTO settings (key, value, updated_at_ms) VALUES (?, ?, ?)
  ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms`;
// A prepared pragma re-runs on every call, so it sees later schema changes.
const SCHEMA_VERSION = "PRAGMA schema_version";

export function sqliteRecordVerbs(sqlite: Sqlite): Pick<CompactionVerbs, "readRecordText" | "writeRecordText" | "readSchemaVersion"> {
  return {
    readRecordText() {
      const row = statement(sqlite, SELECT_RECORD).get(COMPACTION_SETTINGS_KEY) as { value: string } | undefined;
      return row ? row.value : null;
    },
    writeRecordText({ text, nowMs }) {
      statement(sqlite, UPSERT_RECORD).run(COMPACTION_SETTINGS_KEY, text, nowMs);
    },
    readSchemaVersion() {
      return (statement(sqlite, SCHEMA_VERSION).get() as { schema_version: number }).schema_version;
    },
  };
}
