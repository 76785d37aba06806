// The message shape, taken from the English catalogs merged the way
// load-messages merges them (core catalog plus one namespace per feature
// folder), so a missing or misspelt key is a type error in t("...") calls.
import type core from "@/messages/en.json";
import type accounts from "@/messages/accounts/en.json";
import type checkpoints from "@/messages/checkpoints/en.json";
import type conversation from "@/messages/conversation/en.json";
import type database from "@/messages/database/en.json";
import type apiErrors from "@/messages/api-errors/en.json";
import type compaction from "@/messages/compaction/en.json";
import type audit from "@/messages/audit/en.json";
import type maintenanceWindow from "@/messages/maintenance-window/en.json";
import type taskCompaction from "@/messages/task-compaction/en.json";
import type storageHistory from "@/messages/storage-history/en.json";

/** Feature folders under messages/, each one namespace; load-messages merges exactly these. */
export const MESSAGE_FEATURES = ["accounts", "api-errors", "audit", "checkpoints", "compaction", "conversation", "database", "maintenance-window", "storage-history", "task-compaction"] as const;
export type MessageFeature = (typeof MESSAGE_FEATURES)[number];

// A JSON import needs a literal path, so each folder is also named here; the
// check below keeps this map and MESSAGE_FEATURES naming the same folders.
type FeatureCatalogs = {
  accounts: typeof accounts;
  "api-errors": typeof apiErrors;
  audit: typeof audit;
  checkpoints: typeof checkpoints;
  compaction: typeof compaction;
  conversation: typeof conversation;
  database: typeof database;
  "maintenance-window": typeof maintenanceWindow;
  "storage-history": typeof storageHistory;
  "task-compaction": typeof taskCompaction;
};

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

export const featureListMatchesCatalogs: Same<keyof FeatureCatalogs, MessageFeature> = true;

export type Messages = typeof core & UnionToIntersection<FeatureCatalogs[MessageFeature]>;

declare module "next-intl" {
  // Declaration merging with next-intl's AppConfig requires an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  interface AppConfig {
    Messages: Messages;
  }
}
