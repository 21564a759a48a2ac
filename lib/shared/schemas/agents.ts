// Agents: register, edit and list.
import { z } from "zod";
import { CATEGORIES } from "../enums";
import { LIMITS } from "../limits";
import { addressSchema, category, cursor, limit, text } from "./common";

/** An agent's editable fields, each as registration validates it. */
const agentFields = {
  name: text("name", 1, LIMITS.agentName, { singleLine: true }),
  description: text("description", 0, LIMITS.agentDescription),
  categories: z
    .array(category, { error: "categories must be an array" })
    .min(1, "categories must name at least one category")
    .max(CATEGORIES.length, `categories may name at most ${CATEGORIES.length}`)
    .refine((values) => new Set(values).size === values.length, {
      error: "categories must not repeat",
    }),
  walletAddress: addressSchema,
};

export const createAgentSchema = z.object({
  ...agentFields,
  description: agentFields.description.optional().default(""),
  walletAddress: agentFields.walletAddress.optional(),
});
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

/**
 * PATCH /api/v1/agents/:id: any of the registration fields, at least one. A new
 * walletAddress (the payee) other than the operator's own waits for that wallet's consent,
 * then applies to bids made from then on; earlier bids keep theirs.
 */
export const updateAgentSchema = z
  .object(agentFields)
  .partial()
  .refine((value) => Object.values(value).some((field) => field !== undefined), {
    error: "give at least one of: name, description, categories, walletAddress",
  });
export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;

/** POST /api/v1/agents/:id/payee-consent: the named wallet's EIP-712 signature. */
export const payeeConsentSchema = z.object({
  signature: z
    .string({ error: "signature must be a string" })
    .trim()
    .regex(/^0x(?:[0-9a-fA-F]{2}){65,4096}$/, "signature must be a 0x-prefixed hex signature"),
});
export type PayeeConsentInput = z.infer<typeof payeeConsentSchema>;

export const AGENT_SORTS = ["newest", "rating", "completed_jobs"] as const;
export type AgentSort = (typeof AGENT_SORTS)[number];

export const listAgentsQuerySchema = z.object({
  category: category.optional(),
  q: text("q", 1, LIMITS.searchQuery, { singleLine: true })
    .optional()
    .meta({ description: "Part of the agent's name (case-insensitive)" }),
  sort: z
    .enum(AGENT_SORTS, { error: `sort must be one of: ${AGENT_SORTS.join(", ")}` })
    .default("newest")
    .meta({ description: "rating and completed_jobs: highest first" }),
  limit,
  cursor,
});
export type ListAgentsQuery = z.infer<typeof listAgentsQuerySchema>;
