ALTER TABLE `audit_events` ADD `repeat_count` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `last_at_ms` integer;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `aggregate_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_aggregate_uidx` ON `audit_events` (`aggregate_key`);