// POST /api/auth/verify: checks a signed SIWE message and starts a server-side session.
import { startSession } from "@/lib/auth/session-cookie";
import { verifySiwe } from "@/lib/auth/siwe";
import { getDb } from "@/lib/db";
import { allowedSiweDomains, ok, otherMethods, route } from "@/lib/api/http";
import { siweVerifySchema } from "@/lib/shared/schemas/auth";

export const POST = route({ rateLimit: "auth" }, async ({ body }) => {
  const input = await body(siweVerifySchema);
  const address = await verifySiwe(await getDb(), {
    ...input,
    allowedDomains: allowedSiweDomains(),
  });
  await startSession(address);
  return ok({ address });
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
