// Accounts of the e2e server (scripts/e2e-server.ts creates them on a fresh database).
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
export const ADMIN = { email: "e2e-admin@example.com", password: "e2e-admin-password" };
export const VIEWER = { email: "e2e-viewer@example.com", password: "e2e-viewer-password" };
