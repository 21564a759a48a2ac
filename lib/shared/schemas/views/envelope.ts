// The envelopes every answer comes in: `{ data }`, a cursor page, `{ error, code }`.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { ERROR_CODES, ERROR_CODE_NAMES } from "../../error-codes";
import { addressView } from "./primitives";

export const sessionViewSchema = z.object({ address: addressView }).meta({ id: "Session" });
export const nonceViewSchema = z
  .object({ nonce: z.string().meta({ example: "f3a9c2d1e0b84c7a" }) })
  .meta({ id: "Nonce" });
export const okViewSchema = z.object({ ok: z.literal(true) });

/** `{ error }` (and `code` where the contract names one). */
export const errorBodySchema = z
  .object({
    error: z.string().meta({ description: "A readable reason" }),
    code: z.enum(ERROR_CODE_NAMES).meta({
      description:
        "A stable snake_case code a program acts on (never changes): " +
        ERROR_CODE_NAMES.map((code) => `\`${code}\` ${ERROR_CODES[code].description}`).join(" "),
    }),
  })
  .meta({ id: "Error" });

/** `{ data }`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data });
}

/** `{ data: [...], meta: { nextCursor } }`: pass nextCursor back as `cursor` for the next page. */
export function pageEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    meta: z.object({ nextCursor: z.string().nullable() }),
  });
}
