CREATE TABLE `auth_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	`revoked_at_ms` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_sessions_user_idx` ON `auth_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_start_ms` integer NOT NULL,
	`locked_until_ms` integer
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`rowid` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`session_id` text NOT NULL,
	`turn_id` text,
	`author_type` text NOT NULL,
	`type` text NOT NULL,
	`content` text DEFAULT '' NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`tool_call_id` text,
	`created_at` text NOT NULL,
	`created_at_ms` integer,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer,
	FOREIGN KEY (`session_id`) REFERENCES `task_sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`turn_id`) REFERENCES `turns`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_id_uidx` ON `messages` (`id`);--> statement-breakpoint
CREATE INDEX `messages_session_created_at_idx` ON `messages` (`session_id`,`created_at_ms`);--> statement-breakpoint
CREATE INDEX `messages_session_updated_at_idx` ON `messages` (`session_id`,`updated_at_ms`);--> statement-breakpoint
CREATE INDEX `messages_session_type_idx` ON `messages` (`session_id`,`type`);--> statement-breakpoint
CREATE INDEX `messages_session_tool_call_idx` ON `messages` (`session_id`,`tool_call_id`);--> statement-breakpoint
CREATE TABLE `queued_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`content` text NOT NULL,
	`queued_at` text NOT NULL,
	`queued_at_ms` integer,
	FOREIGN KEY (`session_id`) REFERENCES `task_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `queued_messages_session_idx` ON `queued_messages` (`session_id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`state` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `task_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `runs_session_idx` ON `runs` (`session_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `task_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`state` text NOT NULL,
	`started_at` text,
	`started_at_ms` integer,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer,
	`completed_at` text,
	`completed_at_ms` integer,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_sessions_task_idx` ON `task_sessions` (`task_id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`created_at_ms` integer,
	`updated_at` text NOT NULL,
	`updated_at_ms` integer,
	`queued_for_step` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE `turns` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`started_at` text NOT NULL,
	`started_at_ms` integer,
	`completed_at` text,
	`completed_at_ms` integer,
	FOREIGN KEY (`session_id`) REFERENCES `task_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `turns_session_idx` ON `turns` (`session_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);