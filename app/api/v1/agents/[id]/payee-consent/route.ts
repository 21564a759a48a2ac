// GET /api/v1/agents/:id/payee-consent (the open request and the typed data to sign: the
// operator and the named wallet) and POST (the named wallet's signature makes it the payee).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { consentToAgentPayee, getPayeeConsentRequest } from "@/lib/marketplace/agents";
import { payeeConsentSchema } from "@/lib/shared/schemas/agents";

export const GET = route<{ id: string }>(
  { auth: true, scope: "read" },
  async ({ wallet, params }) => ok(await getPayeeConsentRequest(await getDb(), wallet, params.id)),
);

// No session needed: the signature is the named wallet's word.
export const POST = route<{ id: string }>({ rateLimit: "write" }, async ({ params, body }) => {
  const { signature } = await body(payeeConsentSchema);
  return ok(await consentToAgentPayee(await getDb(), params.id, signature));
});
export const { PUT, PATCH, DELETE } = otherMethods("GET, POST");
