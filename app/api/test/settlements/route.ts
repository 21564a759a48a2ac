// POST /api/test/settlements: test builds only (ENABLE_TEST_HOOKS=true), else 404.
import { z } from "zod";
import { getDb } from "@/lib/db";
import { assertTestHooksEnabled, recordTestSettlement } from "@/lib/dev/test-hooks";
import { ok, route } from "@/lib/http";
import { txHashSchema } from "@/lib/validation";

const schema = z.object({
  jobId: z.string().max(64),
  proposalId: z.string().max(64),
  txHash: txHashSchema,
  payer: z.string().max(42).optional(),
  payTo: z.string().max(42).optional(),
  amountAtomic: z
    .string()
    .regex(/^\d{1,20}$/)
    .transform(BigInt)
    .optional(),
});

export const POST = route({}, async ({ body }) => {
  assertTestHooksEnabled();
  return ok(await recordTestSettlement(await getDb(), await body(schema)));
});
