// Sign-In with Ethereum.
import { z } from "zod";

export const siweVerifySchema = z.object({
  message: z.string({ error: "message must be a string" }).min(1).max(4_000, "message is too long"),
  signature: z
    .string({ error: "signature must be a string" })
    .regex(/^0x[0-9a-fA-F]+$/, "signature must be 0x-prefixed hex")
    .max(20_000, "signature is too long"),
});
