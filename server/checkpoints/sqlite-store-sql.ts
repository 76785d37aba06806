// The longer statements of the SQLite checkpoint store: JSON inspection of
// SqliteSaver's blob columns (metadata and checkpoint are JSON text when the
// row's type is 'json').

/** Only the root namespace is ours; any other namespace makes a thread unprovable. */
export const ROOT_NS = "";

const META = "CAST(c.metadata AS TEXT)";
const BODY = "CAST(c.checkpoint AS TEXT)";

/** 1 when the checkpoint's only metadata write is a run duration (mirrors isDurationOnly). */
const DURATION_ONLY_SQL = `CASE WHEN c.type = 'json' AND json_valid(${META}) THEN
  (json_type(${META}, '$.writes.runtime_run_duration') IS NOT NULL
   AND (SELECT count(*) FROM json_each(${META}, '$.writes')) = 1) ELSE 0 END`;

/** The channel_versions map as minified text (key order kept), or NULL when unreadable. */
const VERSIONS_SQL = `CASE WHEN c.type = 'json' AND json_valid(${BODY}) THEN json_extract(${BODY}, '$.channel_versions') END`;
const VALUES_SQL = `CASE WHEN c.type = 'json' AND json_valid(${BODY}) THEN json_extract(${BODY}, '$.channel_values') END`;

export const THREAD_ROWS_SQL = `SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parentId, ${DURATION_ONLY_SQL} AS durationOnly,
    coalesce(length(c.checkpoint), 0) + coalesce(length(c.metadata), 0) AS bytes,
    (SELECT count(*) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS writesCount,
    (SELECT coalesce(sum(length(w.value)), 0) FROM writes w WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS writesBytes
  FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id`;

/** 1 when the checkpoint is a duration leaf stored without channel values (its state is its parent's; durations.ts). */
const LEAN_LEAF_SQL = `CASE WHEN c.type = 'json' AND json_valid(${META}) THEN coalesce(json_extract(${META}, '$.duration_leaf_state') = 'parent', 0) ELSE 0 END`;

export const COMPARE_SQL = `SELECT
    (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childVersions,
    (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentVersions,
    (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childValues,
    (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentValues,
    EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = @thread AND w.checkpoint_ns = @ns AND w.checkpoint_id = @parent AND w.channel = @tasks) AS parentTasks,
    (SELECT CASE WHEN c.type = 'json' AND json_valid(${META}) THEN json_extract(${META}, '$.checkpoint_channel_mode') = 'delta' ELSE 0 END
       FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childDelta,
    (SELECT ${LEAN_LEAF_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childLean`;

// checkpoint_runs (our table, drizzle/): the run history and issued handles.
const RUN_COLUMNS = `thread_id AS threadId, run_id AS runId, status, duration_ms AS durationMs, message_ids AS messageIds,
  handle_id AS handleId, leaf_id AS leafId, leaf_digest AS leafDigest, handle_digest AS handleDigest, issued_at_ms AS issuedAtMs`;
export const RECORD_RUN_SQL = `INSERT INTO checkpoint_runs (thread_id, run_id, seq, status, duration_ms, message_ids, handle_id, leaf_id, leaf_digest, handle_digest, issued_at_ms)
  VALUES (@threadId, @runId, (SELECT coalesce(max(seq), 0) + 1 FROM checkpoint_runs WHERE thread_id = @threadId), @status, @durationMs, @messageIds, @handleId, @leafId, @leafDigest, @handleDigest, @issuedAtMs)`;
export const IMPORT_RUN_SQL = `INSERT INTO checkpoint_runs (thread_id, run_id, seq, status, duration_ms, message_ids, issued_at_ms)
  VALUES (@threadId, @runId, (SELECT coalesce(max(seq), 0) + 1 FROM checkpoint_runs WHERE thread_id = @threadId), 'success', @durationMs, @messageIds, @atMs)
  ON CONFLICT (thread_id, run_id) DO NOTHING`;
export const LIST_RUNS_SQL = `SELECT ${RUN_COLUMNS} FROM checkpoint_runs WHERE thread_id = ? ORDER BY seq, run_id`;
export const HAS_RUNS_SQL = "SELECT EXISTS (SELECT 1 FROM checkpoint_runs WHERE thread_id = ?) AS any";
export const THREAD_HANDLES_SQL = `SELECT handle_id AS checkpointId, run_id AS runId, issued_at_ms AS issuedAtMs FROM checkpoint_runs
  WHERE thread_id = ? AND handle_id IS NOT NULL ORDER BY seq, run_id`;
export const HANDLE_RECORD_SQL = `SELECT handle_id AS checkpointId, run_id AS runId, issued_at_ms AS issuedAtMs FROM checkpoint_runs
  WHERE thread_id = ? AND handle_id = ? ORDER BY issued_at_ms DESC LIMIT 1`;

// Admission cleanup: flat cost, every lookup on a primary key or an index,
// and flat in bytes. A leaf our runs wrote has its row in checkpoint_runs
// (the parent it was written on and both channel_versions digests as
// written), so the head lookup reads the checkpoint's key columns only:
// they precede the blobs in SqliteSaver's rows, so no overflow page of the
// body or the metadata is touched, and the parent lookup is an existence
// probe on the key index. Only a head without that row (a state
// checkpoint, or a leaf written before the table existed) is judged from its
// metadata as before: its stamped channel_versions digest, else the body's
// map (a digest never equals a body's text, so a mixed pair is "different"
// and the leaf stays). SQLite evaluates a CASE branch only when it is taken,
// so a recorded head never reads those columns. A malformed blob makes
// json_extract throw, which the caller turns into a logged no-op.
const LEGACY_VERSIONS = `CASE WHEN c.type <> 'json' THEN NULL
  WHEN json_extract(CAST(c.metadata AS TEXT), '$.channel_versions_digest') IS NOT NULL
    THEN 'digest:' || json_extract(CAST(c.metadata AS TEXT), '$.channel_versions_digest')
  ELSE json_extract(CAST(c.checkpoint AS TEXT), '$.channel_versions') END`;
const LEGACY_META = (path: string) => `CASE WHEN r.run_id IS NULL AND json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '${path}') END`;

export const ADMISSION_HEAD_SQL = `SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parentId,
  r.run_id AS recordedRunId, r.handle_id AS recordedParentId, r.leaf_digest AS leafDigest, r.handle_digest AS parentDigest,
  CASE WHEN r.run_id IS NULL THEN ${DURATION_ONLY_SQL} ELSE 1 END AS durationOnly,
  CASE WHEN r.run_id IS NULL THEN ${LEGACY_VERSIONS} END AS versions,
  ${LEGACY_META("$.run_durations")} AS durations,
  ${LEGACY_META("$.run_message_ids")} AS messageIds,
  ${LEGACY_META("$.run_order")} AS runOrder
  FROM checkpoints c LEFT JOIN checkpoint_runs r ON r.thread_id = c.thread_id AND r.leaf_id = c.checkpoint_id
  WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id DESC LIMIT 1`;
export const ADMISSION_PARENT_SQL = "SELECT 1 AS ok FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?";
export const ADMISSION_VERSIONS_SQL = `SELECT ${LEGACY_VERSIONS} AS versions FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id = ?`;
export const ADMISSION_PROBE_SQL = "SELECT EXISTS (SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?) AS busy";
// The guards repeat the proof inside the deletion: still no writes, still
// the newest, and its parent still there (a recorded leaf's parent is looked
// up only here).
export const ADMISSION_DELETE_SQL = `DELETE FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf
  AND NOT EXISTS (SELECT 1 FROM writes WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf)
  AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.thread_id = @thread AND k.checkpoint_ns = @ns AND k.checkpoint_id > @leaf)
  AND EXISTS (SELECT 1 FROM checkpoints p WHERE p.thread_id = @thread AND p.checkpoint_ns = @ns AND p.checkpoint_id = checkpoints.parent_checkpoint_id)`;

// Every retention deletion bumps the thread's epoch in its own transaction
// (reads in any process compare it and read once more).
export const BUMP_EPOCH_SQL = `INSERT INTO checkpoint_epochs (thread_id, epoch) VALUES (?, 1)
  ON CONFLICT (thread_id) DO UPDATE SET epoch = epoch + 1`;

// The thread view: metadata only (small JSON), never the checkpoint body.
export const ORIGINS_SQL = `SELECT c.checkpoint_id AS id,
    CASE WHEN c.type = 'json' AND json_valid(${META}) THEN json_extract(${META}, '$.source') END AS source,
    CASE WHEN c.type = 'json' AND json_valid(${META}) THEN json_extract(${META}, '$.step') END AS step
  FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id`;

// Path integrity for reads: the parent chain from a checkpoint (default: the
// newest) on primary-key lookups, reading only the id columns (they precede
// the blobs in the row, so no overflow page is touched). The deepest row
// tells the story: a non-null parent there is missing, unless the depth cap
// (the thread's row count) was hit, which only a cycle can do.
export const PATH_END_SQL = `WITH RECURSIVE
  cap(n) AS (SELECT count(*) FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns),
  path(id, parent, depth) AS (
    SELECT checkpoint_id, parent_checkpoint_id, 0 FROM checkpoints
      WHERE thread_id = @thread AND checkpoint_ns = @ns
        AND checkpoint_id = coalesce(@from, (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns))
    UNION ALL
    SELECT c.checkpoint_id, c.parent_checkpoint_id, p.depth + 1 FROM path p
      JOIN checkpoints c ON c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = p.parent
      WHERE p.depth < (SELECT n FROM cap)
  )
  SELECT id, parent AS parentId, depth, (SELECT n FROM cap) AS cap FROM path ORDER BY depth DESC LIMIT 1`;
