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

/**
 * A public read's 200 (with its ETag and caching headers) and its 304, for lib/http.ts's
 * `ok(data, { revalidate })`; the request may send `If-None-Match`.
 */
export function revalidated(schema: z.ZodType, description: string) {
  const headers = z.object({
    etag: z.string().meta({ description: "The answer's entity tag; send it as If-None-Match." }),
    "cache-control": z.literal("public, max-age=0, must-revalidate"),
  });
  return {
    header: z.object({
      "if-none-match": z
        .string()
        .optional()
        .meta({ description: "An ETag of an earlier answer: 304 if it is still current." }),
    }),
    responses: {
      "200": { ...json(schema, description), headers },
      "304": {
        description: "Not modified: the answer named by If-None-Match is current.",
        headers,
      },
    },
  };
}
