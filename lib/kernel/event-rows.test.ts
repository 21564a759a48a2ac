// An event's data answers the addresses its rows hold as the views do (checksumStoredAddress,
// serialize.ts): EIP-55 whether the row stored them checksummed or in lower case, and a case
// no writer stores as written, as toJobView and the JSON pages answer it; its actors are
// those addresses.
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { miscasedAddress, newWallet } from "@/tests/helpers/in-process";
import { eventRows, NOTHING_ELSE } from "./event-rows";

describe("eventRows", () => {
  const poster = newWallet().address;
  const wallet = newWallet().address;
  const operator = newWallet().address;

  const eventOf = (stored: (address: string) => string) =>
    eventRows(
      [{ type: "job.accepted", jobId: "job_1", proposalId: "prop_1" }],
      [
        {
          ...NOTHING_ELSE,
          i: 0,
          status: "in_progress",
          category: "data",
          posterAddress: stored(poster),
          proposalId: "prop_1",
          proposalStatus: "accepted",
          agentId: "agent_1",
          walletAddress: stored(wallet),
          operatorAddress: stored(operator),
        },
      ],
    )[0]!;

  it("answers the poster's, the agent's wallet's and operator's addresses in EIP-55 form", () => {
    for (const stored of [
      (address: string) => address,
      (address: string) => address.toLowerCase(),
    ]) {
      const event = eventOf(stored);
      expect(event.data).toMatchObject({
        posterAddress: getAddress(poster),
        agentWalletAddress: getAddress(wallet),
        agentOperatorAddress: getAddress(operator),
      });
      expect(event.actors).toEqual(
        [poster, wallet, operator].map((address) => getAddress(address)),
      );
    }
  });

  it("takes an address with an upper-case letter as written, as the views do", () => {
    const event = eventOf(miscasedAddress);
    expect(event.data).toMatchObject({
      posterAddress: miscasedAddress(poster),
      agentWalletAddress: miscasedAddress(wallet),
      agentOperatorAddress: miscasedAddress(operator),
    });
    expect(event.actors).toEqual([poster, wallet, operator].map(miscasedAddress));
  });
});
