// The payer's spend controls with x402's own client: a challenge's terms are what it signs,
// and nothing wider (another amount, token or network is refused before any signature).
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { payerFor, spendControlsFor } from "./pay";

const bid: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:31337",
  asset: "0xe78A0F7E598Cc8b0Bb87894B0F60dD2a88d6a8Ab",
  amount: "2500000",
  payTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
};

const challenge = (accepts: PaymentRequirements[]): PaymentRequired => ({
  x402Version: 2,
  resource: { url: "http://localhost:3000/api/jobs/job_1/settle?proposalId=p_1" },
  accepts,
});

describe("the payer's spend controls", () => {
  it("allow exactly the challenge's network, token and amount", () => {
    expect(spendControlsFor([bid])).toEqual({
      allowedAssets: [{ network: bid.network, asset: bid.asset, maxAmountPerPayment: "2500000" }],
    });
  });

  it("sign the bid's own terms", async () => {
    const payer = payerFor(privateKeyToAccount(generatePrivateKey()), [bid]);
    const payload = await payer.createPaymentPayload(challenge([bid]));
    expect(payload.accepted).toMatchObject({ amount: "2500000", payTo: bid.payTo });
  });

  it.each([
    ["one atomic unit more", { amount: "2500001" }],
    ["another token", { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }],
  ])("refuse %s than the bid they were made for", async (_, change) => {
    const payer = payerFor(privateKeyToAccount(generatePrivateKey()), [bid]);
    await expect(payer.createPaymentPayload(challenge([{ ...bid, ...change }]))).rejects.toThrow(
      /spendControls/,
    );
  });
});
