// Test support: blob reachability on PostgresSaver's tables. A surviving
// checkpoint names one (channel, version) pair per channel in its
// channel_versions; each pair must have its checkpoint_blobs row (missing:
// the thread's state is corrupt), and every blob row must be named by some
// surviving checkpoint (unreachable: garbage retention left behind). SQLite
// keeps channel values inside the checkpoint row: nothing to check there.
import type { EngineDb } from "@/server/engines-test-support";

export type BlobReachability = { missing: number; unreachable: number };

export async function blobReachability(db: EngineDb, threadId: string): Promise<BlobReachability> {
  if (db.engine !== "postgres") return { missing: 0, unreachable: 0 };
  const [row] = await db.rows<{ missing: number; unreachable: number }>(
    `with named as (
       select distinct c.checkpoint_ns as ns, e.key as channel, e.value as version
       from checkpoints c, jsonb_each_text(c.checkpoint->'channel_versions') e where c.thread_id = ?)
     select
       (select count(*)::int from named n where not exists (select 1 from checkpoint_blobs b
          where b.thread_id = ? and b.checkpoint_ns = n.ns and b.channel = n.channel and b.version = n.version)) as missing,
       (select count(*)::int from checkpoint_blobs b where b.thread_id = ? and not exists (select 1 from named n
          where n.ns = b.checkpoint_ns and n.channel = b.channel and n.version = b.version)) as unreachable`,
    [threadId, threadId, threadId],
  );
  return { missing: Number(row!.missing), unreachable: Number(row!.unreachable) };
}

/** Blob rows of the thread (0 on SQLite). */
export async function blobCount(db: EngineDb, threadId: string): Promise<number> {
  if (db.engine !== "postgres") return 0;
  return Number((await db.rows<{ n: number }>(`select count(*)::int as n from checkpoint_blobs where thread_id = ?`, [threadId]))[0]!.n);
}
