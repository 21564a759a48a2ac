// What the OpenAPI paths share: security requirements, path parameters, JSON bodies and
// answers. The paths live per area in ./paths/; document.ts puts them together.
import { z } from "zod";
import type { TokenScope } from "@/lib/shared/enums";
import { JSON_BODY_LIMIT } from "@/lib/shared/body-limits";
import { formatBytes } from "@/lib/shared/format";

export const SESSION = [{ session: [] }];
/** A browser session, or an access token with `scope` (README: Access tokens). */
export const sessionOrToken = (scope: TokenScope): Record<string, string[]>[] => [
  { session: [] },
  { token: [scope] },
];
export const webhookPath = z.object({
  id: z.string().meta({ description: "The subscription's id" }),
});
export const jobPath = z.object({ id: z.string().meta({ description: "The job's id" }) });

export function json(schema: z.ZodType, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export function body(schema: z.ZodType, limit = JSON_BODY_LIMIT) {
  return {
    required: true,
    description: `JSON, at most ${formatBytes(limit)}.`,
    content: { "application/json": { schema } },
  };
}
