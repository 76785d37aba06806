/**
 * A thread or checkpoint id short enough for a table cell: the first 8
 * characters of a UUID-like id (its first group), the whole id when short.
 * The full id always stays beside it for assistive technology and copying.
 */
export function shortId(id: string): string {
  return id.length <= 12 ? id : `${id.slice(0, 8)}…`;
}
