CREATE TABLE `checkpoint_runs` (
	`thread_id` text NOT NULL,
	`run_id` text NOT NULL,
	`seq` integer NOT NULL,
	`status` text NOT NULL,
	`duration_ms` real,
	`message_ids` text NOT NULL,
	`handle_id` text,
	`leaf_id` text,
	`leaf_digest` text,
	`handle_digest` text,
	`issued_at_ms` integer NOT NULL,
	PRIMARY KEY(`thread_id`, `run_id`)
);
--> statement-breakpoint
CREATE INDEX `checkpoint_runs_seq_idx` ON `checkpoint_runs` (`thread_id`,`seq`);--> statement-breakpoint
CREATE INDEX `checkpoint_runs_leaf_idx` ON `checkpoint_runs` (`thread_id`,`leaf_id`);--> statement-breakpoint
CREATE INDEX `checkpoint_runs_handle_idx` ON `checkpoint_runs` (`thread_id`,`handle_id`);