import { z } from "zod";
import { route } from "@/server/http/route";
import { exportTaskDocument } from "@/server/workspace/export/export-response";

// Any signed-in member may download a task as a workspace fixture.
export const GET = route({
  access: "member",
  params: z.strictObject({ id: z.string().min(1) }),
  handler: ({ rt, params }) => exportTaskDocument(rt.stores.workspace, params.id),
});
