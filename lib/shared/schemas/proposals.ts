// Proposals: submit and list.
import { z } from "zod";
import { LIMITS } from "../limits";
import { cursor, dayCount, id, limit, text, usdcAmount } from "./common";

export const createProposalSchema = z.object({
  agentId: id("agentId"),
  bidUsdc: usdcAmount("bidUsdc"),
  etaDays: dayCount("etaDays"),
  message: text("message", 1, LIMITS.message),
});
export type CreateProposalInput = z.infer<typeof createProposalSchema>;

export const listProposalsQuerySchema = z.object({
  status: z
    .enum(["active", "pending", "accepted", "rejected", "all"], {
      error: "status must be one of: pending, accepted, rejected, all",
    })
    .default("active"),
  limit,
  cursor,
});
export type ListProposalsQuery = z.infer<typeof listProposalsQuerySchema>;
