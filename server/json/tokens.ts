// Token-level checks of the JSON scanner (scan.ts): the escape rule its fast
// string scan applies, and the in-order walk that names a rejected string's
// first fault (only run once a string has failed, so it may be slow).

const QUOTE = 34;
const HEX4_RE = /[0-9a-fA-F]{4}/y;
// A run of characters that need no attention inside a string.
const STRING_RUN_RE = /[^"\\\u0000-\u001f]*/y;
const CHAR_U = 117;

/** " \\ / b f n r t */
function isSimpleEscape(code: number): boolean {
  return code === 34 || code === 92 || code === 47 || code === 98 || code === 102 || code === 110 || code === 114 || code === 116;
}

/** Length of the valid escape sequence at `slash`, or 0 when it is invalid. */
export function escapeLength(text: string, slash: number): number {
  const e = text.charCodeAt(slash + 1);
  if (e !== CHAR_U) return isSimpleEscape(e) ? 2 : 0;
  HEX4_RE.lastIndex = slash + 2;
  return HEX4_RE.test(text) ? 6 : 0;
}

/** Characters that may not directly follow a number: 0-9 . e E + - */
export function continuesNumber(code: number): boolean {
  return (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45;
}

/**
 * The first fault of the rejected string opening at `open`, found by walking
 * it in order (the fast scan checks escapes before control characters).
 */
export function stringFault(text: string, open: number): { detail: string; at: number } {
  let pos = open + 1;
  for (;;) {
    STRING_RUN_RE.lastIndex = pos;
    STRING_RUN_RE.test(text);
    pos = STRING_RUN_RE.lastIndex;
    const c = text.charCodeAt(pos);
    // A closing quote here would mean the fast scan accepted the string.
    if (pos >= text.length || c === QUOTE) return { detail: "unterminated string", at: open };
    if (c < 0x20) return { detail: "control character in string (must be escaped)", at: pos };
    const length = escapeLength(text, pos);
    if (length === 0) return { detail: text.charCodeAt(pos + 1) === CHAR_U ? "invalid \\u escape" : "invalid escape sequence", at: pos };
    pos += length;
  }
}
