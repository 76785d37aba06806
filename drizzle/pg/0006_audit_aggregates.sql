ALTER TABLE "audit_events" ADD COLUMN "repeat_count" bigint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "last_at_ms" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "aggregate_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_aggregate_uidx" ON "audit_events" USING btree ("aggregate_key");