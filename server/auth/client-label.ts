// A short, fixed-vocabulary label of the browser and system that started a
// session ("Firefox · Linux"), so an admin can tell sessions apart. The
// User-Agent header itself is never stored: it is client-controlled text of
// any length.
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrom(?:e|ium)\/|\bCriOS\//, "Chrome"],
  [/\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
];
const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, "Android"],
  [/\biPhone\b|\biPad\b|\biOS\b/, "iOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bWindows\b/, "Windows"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bLinux\b/, "Linux"],
];

/** Only the first 512 characters are looked at: the patterns stay linear on a short input. */
export function clientLabel(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const head = userAgent.slice(0, 512);
  const browser = BROWSERS.find(([pattern]) => pattern.test(head))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(head))?.[1];
  const parts = [browser, system].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(" · ") : null;
}
