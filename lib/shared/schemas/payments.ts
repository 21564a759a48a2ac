// The x402 payment resource's query.
import { z } from "zod";

export const settleQuerySchema = z.object({
  proposalId: z
    .string({ error: "proposalId is required" })
    .trim()
    .min(1, "proposalId is required")
    .max(64, "proposalId is not a valid identifier"),
});
