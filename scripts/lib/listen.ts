// Where the production server listens. Loopback unless HOST says otherwise:
// a fresh install is not reachable from the network until its operator
// chooses to expose it (README, Security).
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = "3000";

export function listenAddress(env: Record<string, string | undefined>): { host: string; port: string } {
  return { host: env.HOST?.trim() || DEFAULT_HOST, port: env.PORT?.trim() || DEFAULT_PORT };
}

/** Arguments for `next start` bound to HOST and PORT. */
export function nextStartArgs(env: Record<string, string | undefined>): string[] {
  const { host, port } = listenAddress(env);
  return ["start", "-H", host, "-p", port];
}

/** The URL to print: loopback and wildcard addresses are reached through localhost. */
export function displayUrl(env: Record<string, string | undefined>): string {
  const { host, port } = listenAddress(env);
  const shown = ["127.0.0.1", "0.0.0.0", "::"].includes(host) ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}
