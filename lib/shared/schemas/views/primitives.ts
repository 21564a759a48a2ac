// Building blocks of the views: addresses, hashes, timestamps, USDC amounts, categories.
// One part of lib/shared/schemas/views.ts, which collects them.
import { z } from "zod";
import { CATEGORIES } from "../../enums";

export const hex = (what: string, length: number) =>
  z
    .templateLiteral(["0x", z.string()])
    .check(z.regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`)))
    .meta({ description: what });

export const addressView = hex("A checksummed EVM address", 40).meta({
  id: "Address",
  example: "0x22d491Bde2303f2f43325b2108D26f1eAbA1e32b",
});
export const txHashView = hex("A transaction hash", 64).meta({
  id: "TxHash",
  example: "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
});
export const timestamp = z.iso.datetime().meta({ example: "2026-11-22T10:00:00.000Z" });
export const usdc = z.number().meta({ description: "USDC, up to 6 decimals", example: 12.5 });
export const categoryView = z.enum(CATEGORIES).meta({ id: "Category" });
