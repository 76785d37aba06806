CREATE INDEX `messages_session_rowid_idx` ON `messages` (`session_id`);--> statement-breakpoint
CREATE INDEX `messages_session_turn_idx` ON `messages` (`session_id`,`turn_id`);