CREATE TABLE "payload_restores" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"backup_name" text NOT NULL,
	"backup_sha256" text,
	"actor" text NOT NULL,
	"hold" boolean NOT NULL,
	"state" text NOT NULL,
	"started_at_ms" bigint NOT NULL,
	"finished_at_ms" bigint,
	"runner_id" text,
	"restored_messages" bigint DEFAULT 0 NOT NULL,
	"restored_bytes" bigint DEFAULT 0 NOT NULL,
	"skipped" text DEFAULT '{}' NOT NULL,
	"error_code" text
);
--> statement-breakpoint
CREATE TABLE "task_holds" (
	"task_id" text PRIMARY KEY NOT NULL,
	"held_at" text NOT NULL,
	"held_at_ms" bigint,
	"held_by" text NOT NULL,
	"restore_id" text
);
--> statement-breakpoint
ALTER TABLE "task_holds" ADD CONSTRAINT "task_holds_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payload_restores_task_idx" ON "payload_restores" USING btree ("task_id","started_at_ms");