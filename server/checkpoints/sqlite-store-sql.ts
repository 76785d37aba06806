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

export const COMPARE_SQL = `SELECT
    (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childVersions,
    (SELECT ${VERSIONS_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentVersions,
    (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childValues,
    (SELECT ${VALUES_SQL} FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @parent) AS parentValues,
    EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = @thread AND w.checkpoint_ns = @ns AND w.checkpoint_id = @parent AND w.channel = @tasks) AS parentTasks,
    (SELECT CASE WHEN c.type = 'json' AND json_valid(${META}) THEN json_extract(${META}, '$.checkpoint_channel_mode') = 'delta' ELSE 0 END
       FROM checkpoints c WHERE c.thread_id = @thread AND c.checkpoint_ns = @ns AND c.checkpoint_id = @child) AS childDelta`;

// Admission cleanup: flat cost, every lookup on the primary key, and flat in
// bytes: checkpoints our saver wrote carry a digest of their channel_versions
// in the (small) metadata, so the checkpoint body is never parsed. Only a row
// without the digest (written before it existed) falls back to parsing its
// body; a digest never equals a body's text, so a mixed pair is "different"
// and the leaf stays. A malformed blob makes json_extract throw, which the
// caller turns into a logged no-op (no separate json_valid pass).
const ADMISSION_VERSIONS = `CASE WHEN c.type <> 'json' THEN NULL
  WHEN json_extract(CAST(c.metadata AS TEXT), '$.channel_versions_digest') IS NOT NULL
    THEN 'digest:' || json_extract(CAST(c.metadata AS TEXT), '$.channel_versions_digest')
  ELSE json_extract(CAST(c.checkpoint AS TEXT), '$.channel_versions') END`;

export const ADMISSION_HEAD_SQL = `SELECT c.checkpoint_id AS id, c.parent_checkpoint_id AS parentId, ${DURATION_ONLY_SQL} AS durationOnly, ${ADMISSION_VERSIONS} AS versions,
  CASE WHEN json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '$.run_durations') END AS durations,
  CASE WHEN json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '$.run_message_ids') END AS messageIds,
  CASE WHEN json_valid(CAST(c.metadata AS TEXT)) THEN json_extract(CAST(c.metadata AS TEXT), '$.run_order') END AS runOrder
  FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id DESC LIMIT 1`;
export const ADMISSION_VERSIONS_SQL = `SELECT ${ADMISSION_VERSIONS} AS versions FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id = ?`;
export const ADMISSION_PROBE_SQL = "SELECT EXISTS (SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?) AS busy";
// The guards repeat the proof inside the deletion: still no writes, still the newest.
export const ADMISSION_DELETE_SQL = `DELETE FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf
  AND NOT EXISTS (SELECT 1 FROM writes WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @leaf)
  AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.thread_id = @thread AND k.checkpoint_ns = @ns AND k.checkpoint_id > @leaf)`;

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
