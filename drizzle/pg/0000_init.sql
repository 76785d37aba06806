CREATE TABLE "auth_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"created_at_ms" bigint NOT NULL,
	"expires_at_ms" bigint NOT NULL,
	"revoked_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"window_start_ms" bigint NOT NULL,
	"locked_until_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"rowid" bigserial PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"session_id" text NOT NULL,
	"turn_id" text,
	"author_type" text NOT NULL,
	"type" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"metadata" text DEFAULT '{}' NOT NULL,
	"tool_call_id" text,
	"created_at" text NOT NULL,
	"created_at_ms" bigint,
	"updated_at" text NOT NULL,
	"updated_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "queued_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "queued_messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"content" text NOT NULL,
	"queued_at" text NOT NULL,
	"queued_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "runs_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"state" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "task_sessions_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" text NOT NULL,
	"state" text NOT NULL,
	"started_at" text,
	"started_at_ms" bigint,
	"updated_at" text NOT NULL,
	"updated_at_ms" bigint,
	"completed_at" text,
	"completed_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "tasks_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"title" text NOT NULL,
	"state" text NOT NULL,
	"created_at" text NOT NULL,
	"created_at_ms" bigint,
	"updated_at" text NOT NULL,
	"updated_at_ms" bigint,
	"queued_for_step" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "turns" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "turns_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" text NOT NULL,
	"started_at" text NOT NULL,
	"started_at_ms" bigint,
	"completed_at" text,
	"completed_at_ms" bigint
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD CONSTRAINT "auth_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_task_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."task_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_turn_id_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."turns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queued_messages" ADD CONSTRAINT "queued_messages_session_id_task_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."task_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_session_id_task_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."task_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_sessions" ADD CONSTRAINT "task_sessions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_task_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."task_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_sessions_user_idx" ON "auth_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_id_uidx" ON "messages" USING btree ("id");--> statement-breakpoint
CREATE INDEX "messages_session_created_at_idx" ON "messages" USING btree ("session_id","created_at_ms");--> statement-breakpoint
CREATE INDEX "messages_session_updated_at_idx" ON "messages" USING btree ("session_id","updated_at_ms");--> statement-breakpoint
CREATE INDEX "messages_session_type_idx" ON "messages" USING btree ("session_id","type");--> statement-breakpoint
CREATE INDEX "messages_session_tool_call_idx" ON "messages" USING btree ("session_id","tool_call_id");--> statement-breakpoint
CREATE INDEX "messages_session_rowid_idx" ON "messages" USING btree ("session_id","rowid");--> statement-breakpoint
CREATE INDEX "messages_session_turn_idx" ON "messages" USING btree ("session_id","turn_id");--> statement-breakpoint
CREATE INDEX "queued_messages_session_idx" ON "queued_messages" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "runs_session_idx" ON "runs" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "task_sessions_task_idx" ON "task_sessions" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "turns_session_idx" ON "turns" USING btree ("session_id","seq");