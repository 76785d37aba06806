// Reads the compaction marker of a stored row (metadata.payload_retention,
// README and DESIGN.md): the removal time the proof reduces the backup's
// row with, and the bytes it removed. A marker that is not exactly what the
// reducer writes (version 1, an RFC 3339 removed_at, an integer
// removed_bytes, once at the root) is no marker: such a row is reported
// `not_compacted`, never guessed at.
import "server-only";
import { parseRfc3339 } from "@/lib/time/rfc3339";
import { findMember, stringValue, type JsonNode } from "../../json/nodes";
import { scanJson } from "../../json/scan";
import { MARKER_KEY, MARKER_VERSION } from "../reducer/reducer";

export type Marker = { removedAt: string; removedBytes: number };

const integer = (node: JsonNode | undefined): number | null => {
  if (node?.kind !== "number" || !/^(0|[1-9]\d{0,15})$/.test(node.raw)) return null;
  return Number(node.raw);
};

/** The marker of stored metadata (any encoding: the marker is ASCII), or null. */
export function readMarker(metadata: string): Marker | null {
  const scan = scanJson(metadata);
  if (!scan.ok || scan.root.kind !== "object") return null;
  const found = findMember(scan.root, MARKER_KEY);
  if (!found || found === "duplicate" || found.value.kind !== "object") return null;
  const marker = found.value;
  const field = (key: string) => {
    const member = findMember(marker, key);
    return member && member !== "duplicate" ? member.value : undefined;
  };
  if (integer(field("version")) !== MARKER_VERSION) return null;
  const removedAtNode = field("removed_at");
  const removedAt = removedAtNode ? stringValue(removedAtNode) : null;
  const removedBytes = integer(field("removed_bytes"));
  if (removedAt === null || parseRfc3339(removedAt) === null || removedBytes === null) return null;
  return { removedAt, removedBytes };
}
