CREATE TABLE `storage_samples` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at_ms` integer NOT NULL,
	`sample_key` text NOT NULL,
	`trigger` text NOT NULL,
	`operation_id` text,
	`method` text NOT NULL,
	`total_bytes` integer NOT NULL,
	`used_bytes` integer NOT NULL,
	`free_bytes` integer NOT NULL,
	`messages_bytes` integer NOT NULL,
	`checkpoints_bytes` integer NOT NULL,
	`other_bytes` integer NOT NULL,
	`reclaimed_bytes` integer,
	`disk_free_bytes` integer,
	`tables` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `storage_samples_key_uidx` ON `storage_samples` (`sample_key`);--> statement-breakpoint
CREATE INDEX `storage_samples_at_idx` ON `storage_samples` (`at_ms`);