import "server-only";
import http from "node:http";
import https from "node:https";
import type { IncomingMessage } from "node:http";

/**
 * The header that carries the TCP peer's address to route handlers. Next
 * gives handlers a Web Request without the socket, and fills
 * X-Forwarded-For from the socket only when the client sent none, so the
 * address is stamped here, on the Node request, before Next sees it. The
 * stamp replaces whatever the client sent under this name: it cannot be
 * forged while the stamp is installed (peerAddressStampInstalled()).
 */
export const PEER_ADDRESS_HEADER = "x-wsr-peer-address";

// Next may load this module once per bundle (the instrumentation hook and
// each route), while the servers are per process: the installed hook itself,
// found on the shared server prototypes by a property it carries (a
// property, not the function's name, which a minifier may change), is the
// record of it.
const HOOK_MARK = "workspaceRetentionPeerStamp";

function hooked(proto: { emit: unknown }): boolean {
  return typeof proto.emit === "function" && (proto.emit as unknown as Record<string, unknown>)[HOOK_MARK] === true;
}

function stamp(request: IncomingMessage): void {
  request.headers[PEER_ADDRESS_HEADER] = request.socket?.remoteAddress ?? "";
}

/**
 * Makes every HTTP(S) server of this process stamp the peer address on each
 * request, before its own listeners run: `next start` creates its server
 * inside Next, so the hook goes on the server prototypes (idempotent).
 * Called from instrumentation.ts at boot.
 */
export function installPeerAddressStamp(): void {
  for (const proto of [http.Server.prototype, https.Server.prototype]) {
    if (hooked(proto)) continue;
    const original = proto.emit as (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
    proto.emit = function emitWithPeerStamp(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
      if (event === "request" || event === "checkContinue" || event === "checkExpectation") stamp(args[0] as IncomingMessage);
      return original.call(this, event, ...args);
    } as typeof proto.emit;
    Object.defineProperty(proto.emit, HOOK_MARK, { value: true });
  }
}

/** True once installPeerAddressStamp ran in this process: only then is the header trusted. */
export function peerAddressStampInstalled(): boolean {
  return hooked(http.Server.prototype) && hooked(https.Server.prototype);
}
