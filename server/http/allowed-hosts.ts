// The Host allowlist (ALLOWED_HOSTS) against DNS rebinding: a page on a
// name the attacker controls, re-pointed at this server's address, makes
// same-origin requests whose Host and Origin both carry the attacker's name,
// so the Origin check alone passes them. Only names on the list are served.
//
// Default (unset or empty): `localhost` and literal IP addresses, on any
// port. A literal address cannot be re-pointed, so it is never a rebinding
// vector. Entries are comma-separated host names (`retention.example.com`),
// `.example.com` for every subdomain of it, or `*` to turn the check off.
//
// No "server-only" and no database code: proxy.ts bundles this module. Every
// step is a linear scan of a header that Node caps at 16 KiB.
export type AllowedHosts = { names: ReadonlySet<string>; suffixes: readonly string[]; any: boolean };

const DEFAULT_NAMES = ["localhost"];

/** A host name as compared: lower case, without a trailing dot; null when it holds anything a name cannot. */
function normalizeName(value: string): string | null {
  let name = value.trim().toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "" || name.length > 253) return null;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f;
    if (!ok) return null;
  }
  return name;
}

export function parseAllowedHosts(value: string | undefined): { hosts: AllowedHosts; invalid: string[] } {
  const names = new Set<string>(DEFAULT_NAMES);
  const suffixes: string[] = [];
  const invalid: string[] = [];
  let any = false;
  for (const raw of (value ?? "").split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    if (entry === "*") {
      any = true;
      continue;
    }
    // A port written in the entry is ignored: the name is what rebinding forges.
    const withoutPort = entry.startsWith("[") ? entry : entry.replace(/:\d{1,5}$/, "");
    if (withoutPort.startsWith(".")) {
      const suffix = normalizeName(withoutPort.slice(1));
      if (suffix) suffixes.push(`.${suffix}`);
      else invalid.push(entry);
      continue;
    }
    const name = normalizeName(withoutPort);
    if (name) names.add(name);
    else if (!isIpLiteral(withoutPort)) invalid.push(entry);
  }
  return { hosts: { names, suffixes, any }, invalid };
}

function isDigits(text: string): boolean {
  if (text.length === 0 || text.length > 3) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return Number(text) <= 255;
}

/** `1.2.3.4` or a bracketed IPv6 literal (`[::1]`, `[fe80::1%25eth0]` is refused: zone ids have no place in a Host). */
export function isIpLiteral(host: string): boolean {
  if (host.startsWith("[")) {
    if (!host.endsWith("]") || host.length < 4 || host.length > 47) return false;
    const inner = host.slice(1, -1).toLowerCase();
    let colons = 0;
    for (let i = 0; i < inner.length; i++) {
      const c = inner.charCodeAt(i);
      if (c === 0x3a) colons += 1;
      else if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || c === 0x2e)) return false;
    }
    return colons >= 2;
  }
  const parts = host.split(".");
  return parts.length === 4 && parts.every(isDigits);
}

/** The host part of a Host header (`name`, `name:port`, `[v6]:port`); null when it is malformed. */
export function hostOfHeader(header: string): string | null {
  const value = header.trim();
  if (value === "" || value.length > 300) return null;
  if (value.startsWith("[")) {
    const close = value.indexOf("]");
    if (close < 0) return null;
    const rest = value.slice(close + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    return value.slice(0, close + 1).toLowerCase();
  }
  const colon = value.indexOf(":");
  if (colon >= 0 && !/^\d{1,5}$/.test(value.slice(colon + 1))) return null;
  return colon >= 0 ? value.slice(0, colon) : value;
}

/** True when a request with this Host header may be served. A missing Host (HTTP/1.0 tools) is served: no browser omits it. */
export function isAllowedHost(header: string | null, hosts: AllowedHosts): boolean {
  if (hosts.any || header === null) return true;
  const host = hostOfHeader(header);
  if (host === null) return false;
  if (isIpLiteral(host)) return true;
  const name = normalizeName(host);
  if (name === null) return false;
  if (hosts.names.has(name)) return true;
  return hosts.suffixes.some((suffix) => name.endsWith(suffix));
}

// Parsed once per value of the variable (tests change it between cases).
let cached: { raw: string | undefined; hosts: AllowedHosts } | null = null;

/** The allowlist of this process, from ALLOWED_HOSTS. */
export function processAllowedHosts(env: Record<string, string | undefined> = process.env): AllowedHosts {
  const raw = env.ALLOWED_HOSTS;
  if (cached === null || cached.raw !== raw) cached = { raw, hosts: parseAllowedHosts(raw).hosts };
  return cached.hosts;
}
