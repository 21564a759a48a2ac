// GET /api/v1/me/earnings?limit=&cursor= (earned per agent and month, spent per month, and a
// page of the settled transactions behind them).
import { getDb } from "@/lib/db";
import { ok, otherMethods, route } from "@/lib/api/http";
import { getMyEarnings } from "@/lib/payments/ledger/earnings";
import { myEarningsQuerySchema } from "@/lib/shared/schemas/me";

export const GET = route({ auth: true, scope: "read" }, async ({ wallet, query }) => {
  const { view, nextCursor } = await getMyEarnings(
    await getDb(),
    wallet,
    query(myEarningsQuerySchema),
  );
  return ok(view, { meta: { nextCursor } });
});
export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
