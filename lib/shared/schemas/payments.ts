// The x402 payment resource's query.
import { z } from "zod";

export const settleQuerySchema = z.object({
  proposalId: z
    .string({ error: "proposalId is required" })
    .trim()
    .min(1, "proposalId is required")
    .max(64, "proposalId is not a valid identifier"),
  mode: z
    .enum(["now", "escrow"], {
      error: "mode must be now (the agent is paid at once) or escrow (held until you confirm)",
    })
    .default("now")
    .describe(
      "now (default): the agent is paid at once (x402 exact). escrow: a protected payment, " +
        "held in the Commerce Payments escrow until the job is completed (x402 auth-capture).",
    ),
});
