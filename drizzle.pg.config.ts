import { defineConfig } from "drizzle-kit";

// The PostgreSQL engine's migrations (drizzle.config.ts is SQLite's).
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/db/pg-schema.ts",
  out: "./drizzle/pg",
});
