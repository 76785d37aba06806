// Path tests proxy.ts runs on every anonymous request. Each looks at the
// last segment only, with indexOf/slice: linear in the path, whatever it
// holds. (A pattern like /\.[^/]*$/ is retried from every dot and scans to
// the next slash each time: quadratic, and 15,000 dots held the event loop
// for a third of a second a request.) No "server-only": proxy.ts bundles it.

/** The text after the last `/`. */
export function lastSegment(pathname: string): string {
  return pathname.slice(pathname.lastIndexOf("/") + 1);
}

/** True when the last segment names a file (`/favicon.ico`, `/robots.txt`): not a localized page. */
export function hasFileExtension(pathname: string): boolean {
  return lastSegment(pathname).includes(".");
}
