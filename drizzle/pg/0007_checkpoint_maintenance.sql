CREATE TABLE "expired_threads" (
	"thread_id" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"expired_at_ms" bigint NOT NULL,
	"last_activity_ms" bigint,
	"cutoff_ms" bigint NOT NULL,
	"operation_id" text NOT NULL,
	"policy_revision" integer NOT NULL,
	"checkpoints" bigint NOT NULL,
	"writes" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	"finished_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "maintenance_policies" (
	"kind" text PRIMARY KEY NOT NULL,
	"revision" integer NOT NULL,
	"record" text NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "expired_threads_state_idx" ON "expired_threads" USING btree ("state","thread_id");