// The PostgreSQL implementation of the AuditStore (statements mirror sqlite-store.ts).
import type { PgDb } from "@/server/db/pg/pg-db";
import type { AuditRow, AuditStore } from "./store";

export function createPgAuditStore(db: PgDb): AuditStore {
  const store: AuditStore = {
    // Appending needs no domain writer lock: no check-then-write step reads the table.
    writeTransaction: (fn) => db.transaction(() => fn(store)),

    async insert(entry) {
      await db.run(`insert into audit_events (at_ms, actor, kind, result, error_code, detail) values ($1, $2, $3, $4, $5, $6)`, [
        entry.atMs,
        entry.actor,
        entry.kind,
        entry.result,
        entry.errorCode,
        entry.detail,
      ]);
    },

    async addToAggregate(entry) {
      await db.run(
        `insert into audit_events (at_ms, actor, kind, result, error_code, detail, repeat_count, last_at_ms, aggregate_key)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (aggregate_key) do update set repeat_count = audit_events.repeat_count + excluded.repeat_count,
           last_at_ms = greatest(coalesce(audit_events.last_at_ms, audit_events.at_ms), excluded.last_at_ms)`,
        [entry.atMs, entry.actor, entry.kind, entry.result, entry.errorCode, entry.detail, entry.count, entry.lastAtMs, entry.aggregateKey],
      );
    },

    list: (options) =>
      db.query<AuditRow>(
        `select a.seq, a.at_ms as "atMs", a.actor, u.email as "actorEmail", a.kind, a.result, a.error_code as "errorCode", a.detail,
           a.repeat_count as "repeatCount", a.last_at_ms as "lastAtMs"
         from audit_events a left join users u on u.id = a.actor
         where ($1::bigint is null or a.seq < $1::bigint) and ($2::text is null or a.kind = $2::text)
         order by a.seq desc limit $3`,
        [options.beforeSeq, options.kind, options.limit],
      ),

    prune: (options) => db.run(`delete from audit_events where at_ms < $1`, [options.beforeMs]),
  };
  return store;
}
