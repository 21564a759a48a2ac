// DELETE /api/v1/tokens/:id: revokes one of the wallet's access tokens (browser sessions only).
import { revokeAccessToken } from "@/lib/auth/access-tokens";
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";

export const DELETE = route<{ id: string }>(
  { auth: true, rateLimit: "write" },
  async ({ wallet, params }) => ok(await revokeAccessToken(await getDb(), wallet, params.id)),
);
export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
