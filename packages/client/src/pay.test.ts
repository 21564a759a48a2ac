// What the payer signs: checkChallenge refuses a challenge that asks for anything the payer did
// not agree to, and x402's own client (with the spend controls made from the checked
// challenge) signs its terms and nothing wider.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { checkChallenge, payerFor, PaymentTermsError, spendControlsFor } from "./pay";

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
    const payer = payerFor(privateKeyToAccount(generatePrivateKey()), [bid], "now");
    const payload = await payer.createPaymentPayload(challenge([bid]));
    expect(payload.accepted).toMatchObject({ amount: "2500000", payTo: bid.payTo });
  });

  it.each([
    ["one atomic unit more", { amount: "2500001" }],
    ["another token", { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }],
  ])("refuse %s than the bid they were made for", async (_, change) => {
    const payer = payerFor(privateKeyToAccount(generatePrivateKey()), [bid], "now");
    await expect(payer.createPaymentPayload(challenge([{ ...bid, ...change }]))).rejects.toThrow(
      /spendControls/,
    );
  });
});

describe("checking a challenge against what the payer agreed to", () => {
  const agreed = { maxUsdc: 2.5, payTo: bid.payTo };

  it("accepts the bid's own terms, in either case of address", () => {
    expect(() => checkChallenge(challenge([bid]), "now", agreed)).not.toThrow();
    const lower = { ...bid, payTo: bid.payTo.toLowerCase(), asset: bid.asset.toLowerCase() };
    expect(() => checkChallenge(challenge([lower]), "now", agreed)).not.toThrow();
  });

  it.each([
    ["more than the ceiling", { amount: "2500001" }, "now", /over your 2.5/],
    ["another payee", { payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" }, "now", /payee/],
    ["another token", { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }, "now", /token/],
    ["a network without a known USDC", { network: "eip155:1" }, "now", /token/],
    ["an authorization valid for a day", { maxTimeoutSeconds: 86_400 }, "now", /valid/],
    ["an immediate transfer when paying protected", {}, "escrow", /scheme exact/],
    ["a hold when paying now", { scheme: "auth-capture" }, "now", /scheme auth-capture/],
  ] as const)("refuses %s", (_, change, mode, reason) => {
    const check = () => checkChallenge(challenge([{ ...bid, ...change }]), mode, agreed);
    expect(check).toThrow(PaymentTermsError);
    expect(check).toThrow(reason);
  });

  it("refuses a challenge that offers nothing", () => {
    expect(() => checkChallenge(challenge([]), "now", agreed)).toThrow(PaymentTermsError);
  });
});
