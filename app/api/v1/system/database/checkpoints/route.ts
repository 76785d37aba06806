import { route } from "@/server/http/route";
import { getCheckpointStorage, unsupportedCheckpointStorage } from "@/server/checkpoints/cleanup/service";

export const dynamic = "force-dynamic";

export const GET = route({
  access: "member",
  unsupportedRead: unsupportedCheckpointStorage,
  handler: ({ rt }) => getCheckpointStorage(rt),
});
