// Webhook subscriptions: create, and the delivery log's page.
import { z } from "zod";
import { category, cursor, limit } from "./common";
import { EVENT_TYPES, eventType } from "./events";
import { CATEGORIES } from "../enums";

export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** Subscriptions one wallet may hold. */
export const MAX_WEBHOOKS_PER_WALLET = 20;

const webhookUrl = z
  .string({ error: "url must be a string" })
  .trim()
  .min(1, "url must not be empty")
  .max(MAX_WEBHOOK_URL_LENGTH, `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .pipe(
    z.url({
      protocol: /^https?$/,
      error: "url must be an absolute https:// URL",
    }),
  );

/** Empty or absent lists mean "all"; repeated values are kept once. */
function distinct<T extends string>(item: z.ZodType<T>, max: number, field: string) {
  return z
    .array(item, { error: `${field} must be an array` })
    .max(max, `${field} may have at most ${max} items`)
    .optional()
    .default([])
    .transform((values) => [...new Set(values)]);
}

export const createWebhookSchema = z.object({
  url: webhookUrl,
  types: distinct(eventType, EVENT_TYPES.length, "types"),
  categories: distinct(category, CATEGORIES.length, "categories"),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const listDeliveriesQuerySchema = z.object({ limit, cursor });
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>;
