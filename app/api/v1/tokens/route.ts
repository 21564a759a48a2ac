// GET /api/v1/tokens (the wallet's access tokens, no secrets) and POST /api/v1/tokens (create
// one; the secret is in this answer only). Browser sessions only: a token cannot manage tokens.
import { createAccessToken, listAccessTokens } from "@/lib/auth/access-tokens";
import { getDb } from "@/lib/db";
import { ok, okPage, otherMethods, route } from "@/lib/api/http";
import { createTokenSchema, listTokensQuerySchema } from "@/lib/shared/schemas/tokens";

export const GET = route({ auth: true }, async ({ wallet, query }) =>
  okPage(await listAccessTokens(await getDb(), wallet, query(listTokensQuerySchema))),
);

export const POST = route({ auth: true, rateLimit: "write" }, async ({ wallet, body }) =>
  ok(await createAccessToken(await getDb(), wallet, await body(createTokenSchema))),
);
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
