// Runs once per server process before requests are served. startServerProcess
// is idempotent through the process runtime slot (dev reloads call register()
// again); a failure is logged and the server still starts.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // First, so requests from here on carry their socket address (client-address.ts).
  const { installPeerAddressStamp } = await import("./server/http/peer-address");
  installPeerAddressStamp();
  const { startServerProcess } = await import("./server/startup");
  await startServerProcess();
}
