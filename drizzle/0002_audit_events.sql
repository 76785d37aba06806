CREATE TABLE `audit_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at_ms` integer NOT NULL,
	`actor` text NOT NULL,
	`kind` text NOT NULL,
	`result` text NOT NULL,
	`error_code` text,
	`detail` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_at_idx` ON `audit_events` (`at_ms`);--> statement-breakpoint
CREATE INDEX `audit_events_kind_seq_idx` ON `audit_events` (`kind`,`seq`);