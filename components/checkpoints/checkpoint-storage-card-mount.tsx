import { currentPageUser } from "@/server/auth/page-user";
import { CheckpointStorageCard } from "./checkpoint-storage-card";

// Server wrapper for the Database page: the role comes from the session on
// the server, so viewers never receive the Analyze / Clean up controls. The
// API still checks every mutation itself.
export async function CheckpointStorageCardMount() {
  const user = await currentPageUser();
  return <CheckpointStorageCard isAdmin={user?.role === "admin"} />;
}
