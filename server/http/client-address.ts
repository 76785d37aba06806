import "server-only";
import { createHmac } from "node:crypto";
import net from "node:net";
import { PEER_ADDRESS_HEADER } from "./peer-address";

/** The hops allowed to name the client in X-Forwarded-For (TRUSTED_PROXIES). */
export type TrustedProxies = { list: net.BlockList; entries: string[] };

export const UNKNOWN_CLIENT = "unknown";

/**
 * Parses TRUSTED_PROXIES: comma- or blank-separated addresses and CIDR
 * ranges (`10.0.0.0/8, 127.0.0.1, ::1/128`). Entries that do not parse are
 * returned apart so the caller can log them; they trust nothing.
 */
export function parseTrustedProxies(value: string | undefined): { trusted: TrustedProxies; invalid: string[] } {
  const list = new net.BlockList();
  const entries: string[] = [];
  const invalid: string[] = [];
  for (const entry of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
    const [address = "", prefixText, extra] = entry.split("/");
    const family = net.isIP(address);
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
    const maxPrefix = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || !/^\d+$/.test(String(prefix)) || prefix > maxPrefix) {
      invalid.push(entry);
      continue;
    }
    list.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
    entries.push(`${address}/${prefix}`);
  }
  return { trusted: { list, entries }, invalid };
}

/** A bare address from a socket or an X-Forwarded-For entry (brackets, ports and v4-in-v6 removed); null when it is none. */
export function normalizeAddress(value: string): string | null {
  let text = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped) text = mapped[1]!;
  return net.isIP(text) ? text.toLowerCase() : null;
}

/** True when a normalized address is one of TRUSTED_PROXIES. */
export function isTrustedAddress(address: string, trusted: TrustedProxies): boolean {
  return trusted.list.check(address, net.isIPv6(address) ? "ipv6" : "ipv4");
}

/**
 * The client's address: the TCP peer, unless the peer is a trusted proxy;
 * then X-Forwarded-For is read from the right, skipping trusted hops, and
 * the first untrusted entry is the client (entries left of it were written
 * by the client itself and are never read). Without the peer stamp (see
 * peer-address.ts) nothing on the request can be trusted: "unknown".
 */
export function clientAddress(request: Request, options: { trusted: TrustedProxies; stamped: boolean }): string {
  const peer = options.stamped ? normalizeAddress(request.headers.get(PEER_ADDRESS_HEADER) ?? "") : null;
  if (!peer) return UNKNOWN_CLIENT;
  let client = peer;
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  while (isTrustedAddress(client, options.trusted)) {
    const next = hops.pop();
    if (next === undefined) break;
    const address = normalizeAddress(next);
    // A trusted proxy wrote something that is not an address: keep the proxy as the client.
    if (!address) break;
    client = address;
  }
  return client;
}

/**
 * The key a client is throttled under: the address, or for IPv6 its /64
 * (one subscriber usually holds a whole /64 and could rotate through it).
 */
export function throttleAddressKey(address: string): string {
  if (!net.isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

/**
 * The network a client's address belongs to, for the per-network counters:
 * IPv4 /24, IPv6 /48 (a typical end-site allocation: 65,536 /64s).
 */
export function throttleNetKey(address: string): string {
  if (net.isIPv4(address)) return `${address.split(".").slice(0, 3).join(".")}.0/24`;
  if (!net.isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 3).map((g) => parseInt(g, 16).toString(16)).join(":")}::/48`;
}

/** The client as logs show it: a keyed hash, so lines correlate without the address in clear. */
export function hashedClientKey(address: string, key: Buffer): string {
  return createHmac("sha256", key).update(address).digest("hex").slice(0, 16);
}
