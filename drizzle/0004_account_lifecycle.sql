ALTER TABLE `auth_sessions` ADD `id` text;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `last_seen_at_ms` integer;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `client` text;--> statement-breakpoint
CREATE UNIQUE INDEX `auth_sessions_id_idx` ON `auth_sessions` (`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `disabled_at_ms` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `must_change_password` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Sessions started before this migration: an id to show and end them by, and their start as the last activity.
UPDATE `auth_sessions` SET `id` = lower(hex(randomblob(16))), `last_seen_at_ms` = `created_at_ms` WHERE `id` IS NULL;