CREATE TABLE "checkpoint_runs" (
	"thread_id" text NOT NULL,
	"run_id" text NOT NULL,
	"seq" integer NOT NULL,
	"status" text NOT NULL,
	"duration_ms" double precision,
	"message_ids" text NOT NULL,
	"handle_id" text,
	"leaf_id" text,
	"leaf_digest" text,
	"handle_digest" text,
	"issued_at_ms" bigint NOT NULL,
	CONSTRAINT "checkpoint_runs_thread_id_run_id_pk" PRIMARY KEY("thread_id","run_id")
);
--> statement-breakpoint
CREATE INDEX "checkpoint_runs_seq_idx" ON "checkpoint_runs" USING btree ("thread_id","seq");--> statement-breakpoint
CREATE INDEX "checkpoint_runs_leaf_idx" ON "checkpoint_runs" USING btree ("thread_id","leaf_id");--> statement-breakpoint
CREATE INDEX "checkpoint_runs_handle_idx" ON "checkpoint_runs" USING btree ("thread_id","handle_id");