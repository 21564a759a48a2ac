// The pay dialog's side of protected payments (components/jobs/pay/challenge-check.ts and
// x402-client.ts) against the production build and the local chain: the server's real
// auth-capture challenge passes the browser's check and shows the deadlines the server will
// hold the poster to; a challenge changed in any term the poster did not see is refused before
// anything is signed; and what the browser signs (x402's published auth-capture client, loaded
// as the dialog loads it) the server moves into escrow.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS } from "@/dev/escrow";
import { LOCAL_ESCROW_OPERATOR_ADDRESS } from "@/dev/local-chain";
import {
  LOCAL_CHAIN_ID,
  LOCAL_TOKEN_ADDRESS,
  LOCAL_TOKEN_EIP712_DOMAIN,
} from "@/lib/payments/chain/local-network";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { challengeMismatches } from "@/components/jobs/pay/challenge-check";
import { checkChallenge, signPayment } from "@/components/jobs/pay/x402-client";
import type { PayTarget } from "@/components/jobs/pay/types";
import {
  newPaymentCase,
  type PaymentCase,
  startTestMarket,
  type TestMarket,
} from "@/tests/helpers/market";
import { fetchChallenge } from "@/tests/helpers/x402";

const HOUR = 3600;
const REVIEW_HOURS = 2;
const DISPUTE_HOURS = 24;
const GRACE_HOURS = 1;

/** What the server's pages hand the dialog (lib/payments/chain/public-config.ts), for this server. */
const config: PublicPaymentConfig = {
  network: "eip155:31337",
  chainId: LOCAL_CHAIN_ID,
  asset: LOCAL_TOKEN_ADDRESS,
  tokenName: LOCAL_TOKEN_EIP712_DOMAIN.name,
  tokenVersion: LOCAL_TOKEN_EIP712_DOMAIN.version,
  faucetEnabled: true,
  rpcUrl: "http://127.0.0.1:8545",
  protectedPayments: true,
  escrow: {
    address: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
    operator: LOCAL_ESCROW_OPERATOR_ADDRESS,
    reviewSeconds: REVIEW_HOURS * HOUR,
    disputeSeconds: DISPUTE_HOURS * HOUR,
  },
};

describe("the pay dialog paying protected", () => {
  let market: TestMarket;
  /** One job and bid whose challenge the refusal cases each edit a copy of. */
  let shared: PaymentCase;

  beforeAll(async () => {
    market = await startTestMarket("pglite", {
      ESCROW_GRACE_HOURS: String(GRACE_HOURS),
      ESCROW_REVIEW_HOURS: String(REVIEW_HOURS),
      ESCROW_DISPUTE_HOURS: String(DISPUTE_HOURS),
      // Every case signs in two fresh wallets.
      RATE_LIMIT_AUTH_PER_MINUTE: "1000",
    });
    shared = await newPaymentCase(market);
  }, 180_000);
  afterAll(() => market?.stop());

  const targetOf = (c: PaymentCase): PayTarget => ({
    jobId: c.job.id,
    proposalId: c.proposalId,
    bidUsdc: Number(c.job.bidAtomic) / 1e6,
    agentName: "Payee",
    payeeWallet: c.agentWallet,
  });

  async function escrowChallenge(c: PaymentCase): Promise<PaymentRequired> {
    const challenge = await fetchChallenge(`${c.settleUrl()}&mode=escrow`);
    expect(challenge.status).toBe(402);
    return challenge.paymentRequired;
  }

  it("accepts the server's challenge and shows the deadlines the server holds the poster to", async () => {
    const c = await newPaymentCase(market);
    const paymentRequired = await escrowChallenge(c);
    const checked = checkChallenge(paymentRequired, targetOf(c), config, "escrow");
    expect(checked).toMatchObject({ kind: "ready", mode: "escrow" });
    if (checked.kind !== "ready") return;
    const extra = checked.requirement.extra as { captureDeadline: number; refundDeadline: number };
    expect(checked.escrow).toEqual({
      escrow: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
      operator: LOCAL_ESCROW_OPERATOR_ADDRESS,
      // The server's own rule (lib/payments/escrow/requirements.ts, deliverByOf).
      deliverBy: extra.captureDeadline - (REVIEW_HOURS + DISPUTE_HOURS) * HOUR,
      heldUntil: extra.captureDeadline,
      refundUntil: extra.refundDeadline,
      maxFeeBps: 0,
    });
  });

  it("keeps the two ways apart: pay-now's challenge is no protected offer, and stays payable", async () => {
    const c = await newPaymentCase(market);
    const now = await fetchChallenge(c.settleUrl());
    expect(checkChallenge(now.paymentRequired, targetOf(c), config, "now")).toMatchObject({
      kind: "ready",
      mode: "now",
      escrow: null,
    });
    const asProtected = checkChallenge(now.paymentRequired, targetOf(c), config, "escrow");
    expect(asProtected.kind).toBe("error");
    if (asProtected.kind === "error") {
      expect(asProtected.message).toMatch(/did not offer a protected payment/);
    }
    // And the protected challenge is not paid as pay-now.
    const escrow = await escrowChallenge(c);
    expect(checkChallenge(escrow, targetOf(c), config, "now").kind).toBe("error");
  });

  const tampered: [string, (r: PaymentRequirements) => void][] = [
    ["amount", (r) => void (r.amount = (BigInt(r.amount) + 1n).toString())],
    ["payee", (r) => void (r.payTo = LOCAL_ESCROW_OPERATOR_ADDRESS)],
    ["token", (r) => void (r.asset = LOCAL_ESCROW_OPERATOR_ADDRESS)],
    ["escrow contract", (r) => void (r.extra.authCaptureEscrow = LOCAL_TOKEN_ADDRESS)],
    ["escrow contract", (r) => void delete r.extra.authCaptureEscrow],
    ["operator", (r) => void (r.extra.captureAuthorizer = LOCAL_TOKEN_ADDRESS)],
    ["operator", (r) => void delete r.extra.captureAuthorizer],
    ["fee recipient", (r) => void delete r.extra.feeRecipient],
    ["fee", (r) => void (r.extra.maxFeeBps = 20_000)],
    ["fee", (r) => void (r.extra.minFeeBps = 1)],
    ["deadlines", (r) => void (r.extra.captureDeadline = Math.floor(Date.now() / 1000) - 1)],
    ["deadlines", (r) => void (r.extra.refundDeadline = (r.extra.captureDeadline as number) - 1)],
    ["token domain", (r) => void (r.extra.name = "USD Coin")],
    ["transfer method", (r) => void (r.extra.assetTransferMethod = "permit2")],
  ];

  it.each(tampered)("refuses a challenge whose %s differs, before signing", async (field, edit) => {
    const c = shared;
    const paymentRequired = await escrowChallenge(c);
    const requirement = structuredClone(paymentRequired.accepts[0]!);
    edit(requirement);
    const nowSeconds = Math.floor(Date.now() / 1000);
    expect(challengeMismatches(requirement, targetOf(c), config, "escrow", nowSeconds)).toEqual([
      field,
    ]);
    const checked = checkChallenge(
      { ...paymentRequired, accepts: [requirement] },
      targetOf(c),
      config,
      "escrow",
    );
    expect(checked).toMatchObject({ kind: "error", conflict: false });
    if (checked.kind === "error") expect(checked.message).toContain(`(${field} differ)`);
  });

  it("refuses to sign protected where the page says protected payments are off", async () => {
    const c = shared;
    const paymentRequired = await escrowChallenge(c);
    const off = { ...config, protectedPayments: false, escrow: null };
    const requirement = paymentRequired.accepts[0]!;
    expect(
      challengeMismatches(requirement, targetOf(c), off, "escrow", Math.floor(Date.now() / 1000)),
    ).toEqual(["escrow"]);
  });

  it("what the dialog signs, the server holds in escrow and accept takes", async () => {
    const c = await newPaymentCase(market);
    const checked = checkChallenge(await escrowChallenge(c), targetOf(c), config, "escrow");
    if (checked.kind !== "ready") throw new Error(JSON.stringify(checked));
    const { payload, headers } = await signPayment(c.payer, config, checked);
    expect(payload.accepted).toEqual(checked.requirement);
    const settled = await fetch(`${c.settleUrl()}&mode=escrow`, { method: "POST", headers });
    const body = await settled.json();
    expect(settled.status, JSON.stringify(body)).toBe(200);
    expect(body.data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
      proposalId: c.proposalId,
      txHash: body.data.txHash,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const payment = (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data;
    expect(payment).toMatchObject({ mode: "escrow", status: "succeeded" });
    expect(payment!.escrow).toMatchObject({
      state: "held",
      heldUsdc: Number(c.job.bidAtomic) / 1e6,
      heldUntil: new Date(checked.escrow!.heldUntil * 1000).toISOString(),
    });
    // Accept counts the delivery deadline from the acceptance: never before the one the dialog
    // showed, never past the hold's expiry less the review window.
    const deliverBy = Date.parse(payment!.escrow!.deliverBy) / 1000;
    expect(deliverBy).toBeGreaterThanOrEqual(checked.escrow!.deliverBy);
    expect(deliverBy).toBeLessThanOrEqual(checked.escrow!.heldUntil - REVIEW_HOURS * HOUR);
  });
});
