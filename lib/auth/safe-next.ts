import { isLocale } from "@/lib/i18n/routing";

// A base no browser can reach: a relative target is resolved against it the
// way the browser will resolve it against the app, so anything that ends up
// elsewhere (scheme-relative, backslash, tab or newline stripped by the URL
// parser, another scheme) has another origin and is refused. Resolving
// against a second base refuses absolute URLs that happen to name the first:
// the app only ever puts paths in `next`.
const BASE = "http://app.invalid";
const OTHER_BASE = "https://other.invalid";

/**
 * Where to send the user after sign-in: the `next` query value when it
 * resolves to a path of this app under a locale prefix, in its normalized
 * form (what the browser would request); otherwise `fallback`.
 */
export function safeNextPath(value: string | string[] | undefined, fallback: string): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return fallback;
  let url: URL;
  try {
    url = new URL(raw, BASE);
    if (new URL(raw, OTHER_BASE).origin !== OTHER_BASE) return fallback;
  } catch {
    return fallback;
  }
  if (url.origin !== BASE || url.username || url.password) return fallback;
  const locale = url.pathname.split("/")[1];
  if (!isLocale(locale)) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
