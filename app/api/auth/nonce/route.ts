// GET /api/auth/nonce: a single-use SIWE nonce, valid 10 minutes.
import { issueNonce } from "@/lib/auth/siwe";
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";

export const GET = route({ rateLimit: "auth" }, async () =>
  ok({ nonce: await issueNonce(await getDb()) }),
);
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
