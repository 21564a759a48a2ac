// The address columns the views take as written when EIP-55 (checksumStoredAddress,
// lib/kernel/serialize.ts) are filled from these inputs and from the signed-in wallet
// (session-records.test.ts, access-tokens.test.ts): whatever case a client sends, what is
// stored is getAddress's form.
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { createAgentSchema, updateAgentSchema } from "./agents";
import { addressSchema } from "./common";

const address = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
/** Lower case, upper case, EIP-55, and EIP-55 with one letter's case flipped (a wrong checksum). */
const spellings = [
  address,
  address.toUpperCase().replace("0X", "0x"),
  getAddress(address),
  "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
];

describe("address inputs", () => {
  it("come out in EIP-55 form whatever case they were sent in", () => {
    for (const spelling of spellings) {
      expect(addressSchema.parse(spelling)).toBe("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
      const agent = { name: "a", categories: ["research"], walletAddress: ` ${spelling} ` };
      expect(createAgentSchema.parse(agent).walletAddress).toBe(getAddress(address));
      expect(updateAgentSchema.parse({ walletAddress: spelling }).walletAddress).toBe(
        getAddress(address),
      );
    }
  });
});
