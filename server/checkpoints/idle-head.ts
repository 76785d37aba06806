// A replaced head (rollback restore, delta resume, branch, clear) is written
// by the state-only mutation graph, whose checkpoint copies the head's
// channel_versions but holds values only for the channels that graph has.
// The agent graph's trigger channels (`branch:to:*`, `__start__`) keep their
// versions with no value. SqliteSaver stores the checkpoint whole, so they
// read back empty; PostgresSaver resolves every versioned channel from its
// blobs by version, so a cancelled run's pending `branch:to:reply` came back
// and the restored head reported `next: ["reply"]`. Such channels get a new
// version here with no value (an "empty" blob on PostgreSQL): both engines
// then read them empty, and a later write still versions above every node's
// versions_seen.
import type { ChannelVersions, Checkpoint } from "@langchain/langgraph-checkpoint";

/** Configurable key: the channels a state-only write keeps; every other valueless channel is cleared. */
export const IDLE_HEAD_KEY = "checkpoint_idle_head_channels";

export function clearForeignChannels(options: {
  checkpoint: Checkpoint;
  newVersions: ChannelVersions;
  keep: readonly string[];
  nextVersion: (current: number | string | undefined) => number | string;
}): { checkpoint: Checkpoint; newVersions: ChannelVersions } {
  const { checkpoint, keep } = options;
  const versions: ChannelVersions = { ...checkpoint.channel_versions };
  const newVersions: ChannelVersions = { ...options.newVersions };
  for (const [channel, version] of Object.entries(checkpoint.channel_versions)) {
    if (keep.includes(channel) || channel in checkpoint.channel_values || channel in options.newVersions) continue;
    versions[channel] = options.nextVersion(version);
    newVersions[channel] = versions[channel]!;
  }
  return { checkpoint: { ...checkpoint, channel_versions: versions }, newVersions };
}
