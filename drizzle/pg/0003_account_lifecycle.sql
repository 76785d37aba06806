ALTER TABLE "auth_sessions" ADD COLUMN "id" text;--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD COLUMN "last_seen_at_ms" bigint;--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD COLUMN "client" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at_ms" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "must_change_password" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "auth_sessions_id_idx" ON "auth_sessions" USING btree ("id");--> statement-breakpoint
-- Sessions started before this migration: an id to show and end them by, and their start as the last activity.
UPDATE "auth_sessions" SET "id" = md5("token_hash" || random()::text), "last_seen_at_ms" = "created_at_ms" WHERE "id" IS NULL;