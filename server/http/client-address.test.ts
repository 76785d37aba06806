import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { clientAddress, hashedClientKey, normalizeAddress, parseTrustedProxies, throttleAddressKey, UNKNOWN_CLIENT } from "./client-address";
import { PEER_ADDRESS_HEADER, installPeerAddressStamp, peerAddressStampInstalled } from "./peer-address";

function request(peer: string | null, forwardedFor?: string): Request {
  const headers: Record<string, string> = {};
  if (peer !== null) headers[PEER_ADDRESS_HEADER] = peer;
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  return new Request("http://localhost:3000/api/v1/auth/login", { headers });
}

const none = parseTrustedProxies(undefined).trusted;
const proxies = parseTrustedProxies("10.0.0.0/8, 127.0.0.1 ::1/128").trusted;

describe("clientAddress", () => {
  it("without TRUSTED_PROXIES the socket peer is the client and X-Forwarded-For is ignored", () => {
    expect(clientAddress(request("198.51.100.7", "192.0.2.1"), { trusted: none, stamped: true })).toBe("198.51.100.7");
    expect(clientAddress(request("::ffff:198.51.100.7", "192.0.2.1, 10.0.0.1"), { trusted: none, stamped: true })).toBe("198.51.100.7");
  });

  it("behind trusted proxies the rightmost untrusted X-Forwarded-For entry is the client; entries the client wrote are never read", () => {
    const opts = { trusted: proxies, stamped: true };
    expect(clientAddress(request("10.1.2.3", "198.51.100.7"), opts)).toBe("198.51.100.7");
    // The client prepends a forged entry; the proxy appends what it saw.
    expect(clientAddress(request("10.1.2.3", "192.0.2.99, 198.51.100.7"), opts)).toBe("198.51.100.7");
    // Two trusted hops.
    expect(clientAddress(request("127.0.0.1", "192.0.2.99, 198.51.100.7, 10.9.9.9"), opts)).toBe("198.51.100.7");
    // A trusted proxy that forwarded no header: the proxy is the client.
    expect(clientAddress(request("10.1.2.3"), opts)).toBe("10.1.2.3");
    // An untrusted peer's header is ignored even if it names a trusted proxy.
    expect(clientAddress(request("198.51.100.7", "10.0.0.1"), opts)).toBe("198.51.100.7");
    // A garbled entry from a trusted hop stops the walk at that hop.
    expect(clientAddress(request("10.1.2.3", "not-an-ip"), opts)).toBe("10.1.2.3");
    expect(clientAddress(request("::1", "[2001:db8::5]:443"), opts)).toBe("2001:db8::5");
  });

  it("without the socket stamp nothing on the request is believed", () => {
    expect(clientAddress(request("198.51.100.7", "192.0.2.1"), { trusted: proxies, stamped: false })).toBe(UNKNOWN_CLIENT);
    expect(clientAddress(request(null, "192.0.2.1"), { trusted: none, stamped: true })).toBe(UNKNOWN_CLIENT);
  });

  it("parses TRUSTED_PROXIES and sets aside what is not an address or range", () => {
    const { trusted, invalid } = parseTrustedProxies("10.0.0.0/8,fd00::/8 bogus 1.2.3.4/33 5.6.7.8/x ::1");
    expect(trusted.entries).toEqual(["10.0.0.0/8", "fd00::/8", "::1/128"]);
    expect(invalid).toEqual(["bogus", "1.2.3.4/33", "5.6.7.8/x"]);
  });

  it("normalizes addresses and keys IPv6 clients by their /64", () => {
    expect(normalizeAddress(" 192.0.2.1:5555 ")).toBe("192.0.2.1");
    expect(normalizeAddress("example.com")).toBeNull();
    expect(throttleAddressKey("192.0.2.1")).toBe("192.0.2.1");
    expect(throttleAddressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(throttleAddressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(throttleAddressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
  });

  it("the log key of a client is a keyed hash: stable per key, unlinkable across keys", () => {
    const key = randomBytes(32);
    expect(hashedClientKey("192.0.2.1", key)).toBe(hashedClientKey("192.0.2.1", key));
    expect(hashedClientKey("192.0.2.1", key)).not.toBe(hashedClientKey("192.0.2.1", randomBytes(32)));
    expect(hashedClientKey("192.0.2.1", key)).not.toContain("192");
  });
});

describe("the socket address stamp", () => {
  it("replaces a forged peer header with the real socket address before the server's handler runs", async () => {
    installPeerAddressStamp();
    expect(peerAddressStampInstalled()).toBe(true);
    const seen: (string | undefined)[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers[PEER_ADDRESS_HEADER] as string | undefined);
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        headers: { [PEER_ADDRESS_HEADER]: "203.0.113.1", "x-forwarded-for": "203.0.113.2" },
      });
      expect(await response.text()).toBe("ok");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(seen).toHaveLength(1);
    expect(normalizeAddress(seen[0] ?? "")).toBe("127.0.0.1");
  });
});
