// Label values of the operator metrics come from our own closed vocabularies
// (skip reasons, error codes, table names, modes). Anything outside that
// shape (an id, a title, a path that slipped in) is folded into "other", so
// a label can never carry one and the series count stays bounded.
const SAFE_LABEL = /^[a-z][a-z_]{0,63}$/;

export function safeLabel(value: string | null | undefined): string {
  return value && SAFE_LABEL.test(value) ? value : "other";
}
