// The PostgreSQL implementation of the AuditStore (statements mirror sqlite-store.ts).
import type { SqlClient } from "@/server/db/pg/client";
import type { AuditRow, AuditStore } from "./store";

export function createPgAuditStore(client: SqlClient): AuditStore {
  const store: AuditStore = {
    // Appending needs no domain writer lock: no check-then-write step reads the table.
    writeTransaction: (fn) => client.transaction(() => fn(store)),

    insert(entry) {
      client.run(`insert into audit_events (at_ms, actor, kind, result, error_code, detail) values ($1, $2, $3, $4, $5, $6)`, [
        entry.atMs,
        entry.actor,
        entry.kind,
        entry.result,
        entry.errorCode,
        entry.detail,
      ]);
    },

    list: (options) =>
      client.query<AuditRow>(
        `select a.seq, a.at_ms as "atMs", a.actor, u.email as "actorEmail", a.kind, a.result, a.error_code as "errorCode", a.detail
         from audit_events a left join users u on u.id = a.actor
         where ($1::bigint is null or a.seq < $1::bigint) and ($2::text is null or a.kind = $2::text)
         order by a.seq desc limit $3`,
        [options.beforeSeq, options.kind, options.limit],
      ),

    prune: (options) => client.run(`delete from audit_events where at_ms < $1`, [options.beforeMs]),
  };
  return store;
}
