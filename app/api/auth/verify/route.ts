// POST /api/auth/verify: checks a signed SIWE message and starts the session cookie.
import { startSession } from "@/lib/auth/session";
import { verifySiwe } from "@/lib/auth/siwe";
import { getDb } from "@/lib/db";
import { allowedSiweDomains, ok, otherMethods, route } from "@/lib/http";
import { siweVerifySchema } from "@/lib/validation";

export const POST = route({ rateLimit: "auth" }, async ({ req, body }) => {
  const input = await body(siweVerifySchema);
  const address = await verifySiwe(await getDb(), {
    ...input,
    allowedDomains: allowedSiweDomains(req),
  });
  await startSession(address);
  return ok({ address });
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
