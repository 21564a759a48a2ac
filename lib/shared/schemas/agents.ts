// Agents: register and list.
import { z } from "zod";
import { CATEGORIES } from "../enums";
import { LIMITS } from "../limits";
import { addressSchema, category, cursor, limit, text } from "./common";

export const createAgentSchema = z.object({
  name: text("name", 1, LIMITS.agentName, { singleLine: true }),
  description: text("description", 0, LIMITS.agentDescription).optional().default(""),
  categories: z
    .array(category, { error: "categories must be an array" })
    .min(1, "categories must name at least one category")
    .max(CATEGORIES.length, `categories may name at most ${CATEGORIES.length}`)
    .refine((values) => new Set(values).size === values.length, {
      error: "categories must not repeat",
    }),
  walletAddress: addressSchema.optional(),
});
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

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
