// The building blocks of every input schema: bounded, trimmed text, USDC amounts, day counts,
// identifiers, addresses, hashes, ratings and page parameters. Isomorphic: routes and forms
// use the same rules.
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { CATEGORIES } from "../enums";
import { stripInvisible } from "../invisible";
import { LIMITS } from "../limits";
import { hasUsdcPrecision, MAX_USDC } from "../money";

// In the browser, zod parses without compiling code: its compiled object parsers call
// `Function(...)`, which the site's Content-Security-Policy (no 'unsafe-eval') refuses, and
// even zod's probe for it is reported as a violation. Servers keep the faster compiled path.
if (typeof window !== "undefined") z.config({ jitless: true });

// Control characters other than tab and newline (C0, DEL and C1) have no place in user text.
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// Line and paragraph separators break a line as \n does.
const LINE_BREAKS = /[\r\n\u2028\u2029]/;

/**
 * Display text: invisible and direction-changing characters stripped (lib/shared/invisible.ts),
 * then trimmed and bounded; control characters refused.
 */
export function text(field: string, min: number, max: number, { singleLine = false } = {}) {
  return z
    .string({ error: `${field} must be a string` })
    .overwrite(stripInvisible)
    .trim()
    .min(
      min,
      min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters`,
    )
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARS.test(value) && !(singleLine && LINE_BREAKS.test(value)), {
      error: `${field} contains characters that are not allowed`,
    });
}

export function usdcAmount(field: string, max: number = MAX_USDC) {
  return z
    .number({ error: `${field} must be a number` })
    .refine(Number.isFinite, { error: `${field} must be a finite number`, abort: true })
    .refine((value) => value > 0, { error: `${field} must be greater than 0`, abort: true })
    .refine((value) => value <= max, { error: `${field} must be at most ${max}`, abort: true })
    .refine(hasUsdcPrecision, { error: `${field} must have at most 6 decimal places` });
}

export function dayCount(field: string) {
  return z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be a whole number of days`)
    .min(1, `${field} must be greater than 0`)
    .max(LIMITS.maxDays, `${field} must be at most ${LIMITS.maxDays}`);
}

export function id(field: string) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(64, `${field} is not a valid identifier`);
}

/**
 * An id used as a filter (not looked up by itself): one no row can have (control characters,
 * which PostgreSQL refuses in text: "invalid byte sequence 0x00") is the client's 400.
 */
export function filterId(field: string) {
  return id(field).refine((value) => !CONTROL_CHARS.test(value), {
    error: `${field} is not a valid identifier`,
  });
}

const INT8_MAX = 9_223_372_036_854_775_807n;

/**
 * The id of a row numbered by the database (an event, a message, a notification), as the
 * decimal string clients get back: 1 to 2^63-1 (`zero`: 0 too, "from the start"). Anything
 * else is the client's 400, never a number the column cannot hold.
 */
export function serialId(
  message: string,
  { zero = false, typeMessage = message }: { zero?: boolean; typeMessage?: string } = {},
) {
  return z
    .string({ error: typeMessage })
    .trim()
    .regex(zero ? /^(0|[1-9][0-9]{0,18})$/ : /^[1-9][0-9]{0,18}$/, message)
    .transform((value) => BigInt(value))
    .refine((value) => value <= INT8_MAX, { error: message });
}

/** A wallet address, in any case, as its checksummed form. */
export function walletAddress(field: string, invalid = `${field} is not a valid wallet address`) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .refine((value) => isAddress(value, { strict: false }), { error: invalid })
    .transform((value) => getAddress(value));
}

export const addressSchema = walletAddress("address", "not a valid wallet address");

export const txHashSchema = z
  .string({ error: "txHash must be a string" })
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/, "txHash must be a 0x-prefixed 32-byte hex transaction hash")
  .transform((value) => value.toLowerCase() as `0x${string}`);

export const category = z.enum(CATEGORIES, {
  error: `category must be one of: ${CATEGORIES.join(", ")}`,
});

export const rating = z
  .number({ error: "rating must be a number" })
  .int("rating must be a whole number from 1 to 5")
  .min(1, "rating must be from 1 to 5")
  .max(5, "rating must be from 1 to 5");

export const limit = z.coerce
  .number({ error: "limit must be a number" })
  .int("limit must be a whole number")
  .min(1, "limit must be from 1 to 100")
  .max(LIMITS.pageSize, "limit must be from 1 to 100")
  .default(LIMITS.defaultPageSize);
export const cursor = z.string().max(200, "cursor is not valid").optional();

export const pageQuerySchema = z.object({ limit, cursor });

/** Turns zod issues into one readable sentence for `{ error }`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.filter((part) => typeof part !== "symbol").join(".");
      return issue.message.startsWith(String(issue.path[0] ?? "")) || !path
        ? issue.message
        : `${path}: ${issue.message}`;
    })
    .join("; ");
}
