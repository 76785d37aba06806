// The SQLite implementation of the AuditStore.
import type { SqliteDb } from "@/server/db/sqlite-db";
import { statement } from "@/server/db/statements";
import type { AuditRow, AuditStore } from "./store";

export function createSqliteAuditStore(db: SqliteDb): AuditStore {
  const store: AuditStore = {
    writeTransaction: (fn) => db.transaction(() => fn(store)),

    insert: (entry) =>
      db.write((writer) => {
        statement(
          writer,
          `insert into audit_events (at_ms, actor, kind, result, error_code, detail) values (@atMs, @actor, @kind, @result, @errorCode, @detail)`,
        ).run(entry);
      }),

    addToAggregate: (entry) =>
      db.write((writer) => {
        statement(
          writer,
          `insert into audit_events (at_ms, actor, kind, result, error_code, detail, repeat_count, last_at_ms, aggregate_key)
           values (@atMs, @actor, @kind, @result, @errorCode, @detail, @count, @lastAtMs, @aggregateKey)
           on conflict (aggregate_key) do update set repeat_count = repeat_count + excluded.repeat_count,
             last_at_ms = max(coalesce(last_at_ms, at_ms), excluded.last_at_ms)`,
        ).run(entry);
      }),

    list: async (options) =>
      statement(
        db.reading(),
        `select a.seq, a.at_ms as atMs, a.actor, u.email as actorEmail, a.kind, a.result, a.error_code as errorCode, a.detail,
           a.repeat_count as repeatCount, a.last_at_ms as lastAtMs
         from audit_events a left join users u on u.id = a.actor
         where (@beforeSeq is null or a.seq < @beforeSeq) and (@kind is null or a.kind = @kind)
         order by a.seq desc limit @limit`,
      ).all(options) as AuditRow[],

    prune: (options) => db.write((writer) => statement(writer, `delete from audit_events where at_ms < ?`).run(options.beforeMs).changes),
  };
  return store;
}
