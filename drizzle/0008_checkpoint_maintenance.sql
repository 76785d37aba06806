CREATE TABLE `expired_threads` (
	`thread_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`expired_at_ms` integer NOT NULL,
	`last_activity_ms` integer,
	`cutoff_ms` integer NOT NULL,
	`operation_id` text NOT NULL,
	`policy_revision` integer NOT NULL,
	`checkpoints` integer NOT NULL,
	`writes` integer NOT NULL,
	`bytes` integer NOT NULL,
	`finished_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `expired_threads_state_idx` ON `expired_threads` (`state`,`thread_id`);--> statement-breakpoint
CREATE TABLE `maintenance_policies` (
	`kind` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL,
	`record` text NOT NULL,
	`updated_at_ms` integer NOT NULL
);
