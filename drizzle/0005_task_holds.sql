CREATE TABLE `payload_restores` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`backup_name` text NOT NULL,
	`backup_sha256` text,
	`actor` text NOT NULL,
	`hold` integer NOT NULL,
	`state` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer,
	`runner_id` text,
	`restored_messages` integer DEFAULT 0 NOT NULL,
	`restored_bytes` integer DEFAULT 0 NOT NULL,
	`skipped` text DEFAULT '{}' NOT NULL,
	`error_code` text
);
--> statement-breakpoint
CREATE INDEX `payload_restores_task_idx` ON `payload_restores` (`task_id`,`started_at_ms`);--> statement-breakpoint
CREATE TABLE `task_holds` (
	`task_id` text PRIMARY KEY NOT NULL,
	`held_at` text NOT NULL,
	`held_at_ms` integer,
	`held_by` text NOT NULL,
	`restore_id` text,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
