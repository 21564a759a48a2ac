// Pieces for views PostgreSQL writes as JSON text (job-rows.ts, agent-rows.ts,
// review-rows.ts), so that the text is byte for byte what the view's serializer
// (serialize.ts) and JSON.stringify write: instants as Date#toISOString writes them, USDC
// amounts as atomicToUsdc's numbers, and addresses checksummed in Node (PostgreSQL has no
// keccak-256), over the page's text once.
import { Prisma } from "@/lib/generated/prisma/client";
import { checksumStoredAddress } from "./serialize";

/** An instant as Date#toISOString writes it (the columns hold UTC without a zone). */
export const isoSql = (column: Prisma.Sql) =>
  Prisma.sql`to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * An atomic amount as USDC: the exact decimal without trailing zeros, from which atomicToUsdc
 * takes its number. Beyond 15 significant digits (a sum of large amounts) JavaScript prints
 * that number otherwise: a jsonFinisher's `numberKeys` write it as atomicToUsdc's.
 */
export const usdcSql = (atomic: Prisma.Sql) =>
  Prisma.sql`trim_scale((${atomic})::numeric / 1000000)`;

/**
 * A function rewriting JSON text: every `"key":"0x…"` of `addressKeys` checksummed (EIP-55,
 * checksumStoredAddress),
 * and every `"key":<number>` of `numberKeys` written as Number and JSON.stringify write that
 * number. Only a key can be written `"key":` with bare quotes: inside a JSON string every
 * quote is escaped.
 */
export function jsonFinisher(
  addressKeys: readonly string[],
  numberKeys: readonly string[] = [],
): (json: string) => string {
  const alternatives = [`"(${addressKeys.join("|")})":"(0x[0-9a-fA-F]{40})"`];
  if (numberKeys.length) alternatives.push(`"(${numberKeys.join("|")})":(-?[0-9][0-9.eE+-]*)`);
  const pattern = new RegExp(alternatives.join("|"), "g");
  return (json) =>
    json.replace(
      pattern,
      (_match, addressKey?: string, address?: string, numberKey?: string, number?: string) => {
        if (addressKey !== undefined) {
          return `"${addressKey}":"${checksumStoredAddress(address!)}"`;
        }
        return `"${numberKey!}":${JSON.stringify(Number(number))}`;
      },
    );
}
