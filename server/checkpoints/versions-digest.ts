// A digest of a checkpoint's channel_versions, stamped into its metadata when
// our saver writes it, so admission cleanup can prove "same versions as the
// parent" from the small metadata alone instead of parsing both checkpoint
// bodies (the whole conversation, in full mode). Keys are sorted: the proof
// must not depend on the order a writer happened to insert channels in.
import { createHash } from "node:crypto";
import type { ChannelVersions } from "@langchain/langgraph-checkpoint";

export const VERSIONS_DIGEST_KEY = "channel_versions_digest";

export function channelVersionsDigest(versions: ChannelVersions): string {
  const canonical = JSON.stringify(Object.keys(versions).sort().map((k) => [k, versions[k]]));
  return createHash("sha256").update(canonical).digest("hex").slice(0, 32);
}
