// Decides whether a tool result is plain output (safe to remove) or a
// structured result another feature may read back (kept).
//
// Grounded in MCP's CallToolResult: `{content: ContentBlock[], isError?,
// structuredContent?, _meta?}` where a ContentBlock is text, image, audio,
// resource_link or an embedded resource. Only plain text survives as the
// conversation's record of what a tool printed; images, audio, resources,
// resource links, structuredContent and any envelope we do not recognize
// are contracts (or may be), so the whole row is kept and counted skipped.
import { stringValue, type JsonNode, type JsonObjectNode } from "../../json/nodes";

export type ResultClass = "plain" | "structured";

const RESULT_KEYS = new Set(["content", "isError", "_meta"]);
const TEXT_PART_KEYS = new Set(["type", "text", "annotations", "_meta"]);
const ANNOTATION_KEYS = new Set(["audience", "priority", "lastModified"]);
// _meta keys that point at plan, task, attachment or resource data.
const CONTRACT_META_KEY = /plan|task|todo|attach|resource|file|entity|subagent|uri/i;

function hasOnlyKeys(node: JsonObjectNode, allowed: ReadonlySet<string>): boolean {
  return node.members.every((member) => allowed.has(member.key));
}

function metaHasContractKeys(node: JsonNode): boolean {
  if (node.kind === "object") {
    return node.members.some((member) => CONTRACT_META_KEY.test(member.key) || metaHasContractKeys(member.value));
  }
  if (node.kind === "array") return node.items.some(metaHasContractKeys);
  return false;
}

function isPlainMeta(node: JsonNode): boolean {
  return node.kind === "object" && !metaHasContractKeys(node);
}

function isTextPart(node: JsonNode): boolean {
  if (node.kind !== "object" || !hasOnlyKeys(node, TEXT_PART_KEYS)) return false;
  let sawType = false;
  let sawText = false;
  for (const member of node.members) {
    const value = member.value;
    if (member.key === "type") {
      if (sawType || stringValue(value) !== "text") return false;
      sawType = true;
    } else if (member.key === "text") {
      if (sawText || value.kind !== "string") return false;
      sawText = true;
    } else if (member.key === "annotations") {
      if (value.kind !== "object" || !hasOnlyKeys(value, ANNOTATION_KEYS)) return false;
    } else if (!isPlainMeta(value)) {
      return false;
    }
  }
  return sawType && sawText;
}

function isTextContent(node: JsonNode): boolean {
  return node.kind === "array" && node.items.every(isTextPart);
}

function isTextCallToolResult(node: JsonObjectNode): boolean {
  if (!hasOnlyKeys(node, RESULT_KEYS)) return false;
  const seen = new Set<string>();
  for (const member of node.members) {
    if (seen.has(member.key)) return false;
    seen.add(member.key);
    if (member.key === "content" && !isTextContent(member.value)) return false;
    if (member.key === "isError" && member.value.kind !== "boolean") return false;
    if (member.key === "_meta" && !isPlainMeta(member.value)) return false;
  }
  return seen.has("content");
}

/**
 * Plain: a scalar (a string is the usual printed output), a bare array of
 * MCP text parts, or a CallToolResult whose content is only text parts.
 * Everything else is structured.
 */
export function classifyResult(node: JsonNode): ResultClass {
  switch (node.kind) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return "plain";
    case "array":
      return isTextContent(node) ? "plain" : "structured";
    case "object":
      return isTextCallToolResult(node) ? "plain" : "structured";
  }
}
