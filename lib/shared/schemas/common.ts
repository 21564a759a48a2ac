// The building blocks of every input schema: bounded, trimmed text, USDC amounts, day counts,
// identifiers, addresses, hashes, ratings and page parameters. Isomorphic: routes and forms
// use the same rules.
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { CATEGORIES } from "../enums";
import { LIMITS } from "../limits";
import { hasUsdcPrecision, MAX_USDC } from "../money";

// Control characters other than tab and newline have no place in user text.
const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function text(field: string, min: number, max: number, { singleLine = false } = {}) {
  return z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(
      min,
      min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters`,
    )
    .max(max, `${field} must be at most ${max} characters`)
    .refine((value) => !CONTROL_CHARS.test(value) && !(singleLine && /[\r\n]/.test(value)), {
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

export const addressSchema = z
  .string({ error: "address must be a string" })
  .trim()
  .refine((value) => isAddress(value, { strict: false }), { error: "not a valid wallet address" })
  .transform((value) => getAddress(value));

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
