// Access tokens: create and list.
import { z } from "zod";
import { TOKEN_SCOPES } from "../enums";
import { LIMITS } from "../limits";
import { cursor, limit, text } from "./common";

/** Live (unexpired, unrevoked) tokens one wallet may hold; a revoked or expired one frees a place. */
export const MAX_LIVE_TOKENS_PER_WALLET = 20;

export const createTokenSchema = z.object({
  name: text("name", 1, LIMITS.tokenName, { singleLine: true }),
  scopes: z
    .array(
      z.enum(TOKEN_SCOPES, { error: `each scope must be one of: ${TOKEN_SCOPES.join(", ")}` }),
      { error: "scopes must be an array" },
    )
    .min(1, "scopes must name at least one scope")
    .max(TOKEN_SCOPES.length, `scopes may name at most ${TOKEN_SCOPES.length}`)
    .refine((values) => new Set(values).size === values.length, {
      error: "scopes must not repeat",
    }),
  expiresInDays: z
    .number({ error: "expiresInDays must be a number" })
    .int("expiresInDays must be a whole number of days")
    .min(1, `expiresInDays must be from 1 to ${LIMITS.tokenMaxDays}`)
    .max(LIMITS.tokenMaxDays, `expiresInDays must be from 1 to ${LIMITS.tokenMaxDays}`)
    .optional()
    .default(LIMITS.tokenDefaultDays),
});
export type CreateTokenInput = z.infer<typeof createTokenSchema>;

export const listTokensQuerySchema = z.object({ limit, cursor });
export type ListTokensQuery = z.infer<typeof listTokensQuerySchema>;
