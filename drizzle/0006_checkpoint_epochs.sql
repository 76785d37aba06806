CREATE TABLE `checkpoint_epochs` (
	`thread_id` text PRIMARY KEY NOT NULL,
	`epoch` integer NOT NULL
);
