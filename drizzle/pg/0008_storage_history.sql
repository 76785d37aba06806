CREATE TABLE "storage_samples" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at_ms" bigint NOT NULL,
	"sample_key" text NOT NULL,
	"trigger" text NOT NULL,
	"operation_id" text,
	"method" text NOT NULL,
	"total_bytes" bigint NOT NULL,
	"used_bytes" bigint NOT NULL,
	"free_bytes" bigint NOT NULL,
	"messages_bytes" bigint NOT NULL,
	"checkpoints_bytes" bigint NOT NULL,
	"other_bytes" bigint NOT NULL,
	"reclaimed_bytes" bigint,
	"disk_free_bytes" bigint,
	"tables" text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "storage_samples_key_uidx" ON "storage_samples" USING btree ("sample_key");--> statement-breakpoint
CREATE INDEX "storage_samples_at_idx" ON "storage_samples" USING btree ("at_ms");