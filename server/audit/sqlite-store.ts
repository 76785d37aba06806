// The SQLite implementation of the AuditStore.
import type { Sqlite } from "@/server/db/client";
import { statement } from "@/server/db/statements";
import type { AuditRow, AuditStore } from "./store";

export function createSqliteAuditStore(sqlite: Sqlite): AuditStore {
  const inTransaction = sqlite.transaction((fn: (tx: AuditStore) => unknown) => fn(store));

  const store: AuditStore = {
    writeTransaction: <T>(fn: (tx: AuditStore) => T): T => inTransaction.immediate(fn) as T,

    insert(entry) {
      statement(
        sqlite,
        `insert into audit_events (at_ms, actor, kind, result, error_code, detail) values (@atMs, @actor, @kind, @result, @errorCode, @detail)`,
      ).run(entry);
    },

    list: (options) =>
      statement(
        sqlite,
        `select a.seq, a.at_ms as atMs, a.actor, u.email as actorEmail, a.kind, a.result, a.error_code as errorCode, a.detail
         from audit_events a left join users u on u.id = a.actor
         where (@beforeSeq is null or a.seq < @beforeSeq) and (@kind is null or a.kind = @kind)
         order by a.seq desc limit @limit`,
      ).all(options) as AuditRow[],

    prune: (options) => statement(sqlite, `delete from audit_events where at_ms < ?`).run(options.beforeMs).changes,
  };
  return store;
}
