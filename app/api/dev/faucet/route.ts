// POST /api/dev/faucet { address, amountUsdc }: test USDC on the local chain only (else 404).
import { ok, otherMethods, route } from "@/lib/http";
import { requestTestUsdc } from "@/lib/payments/faucet";
import { faucetSchema } from "@/lib/validation";

export const POST = route({ rateLimit: "write" }, async ({ body }) => {
  return ok(await requestTestUsdc(await body(faucetSchema)));
});
export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
