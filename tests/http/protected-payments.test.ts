// Protected payments (issue 25) over HTTP against the production build, a real database and
// the local chain with our Commerce Payments stand-in: the poster pays with the published
// x402 auth-capture client (@x402/evm), the operator (the server) authorizes into escrow,
// and every way out moves the money once: release on complete, refund on cancel after the
// deadline, auto-release after the review window, a dispute resolved by an admin. Hostile
// payloads are refused before the operator signs anything. Tests that move the chain's clock
// run last (a later payment's client signs against the wall clock).
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS } from "@/dev/escrow";
import { LOCAL_ESCROW_OPERATOR_ADDRESS } from "@/dev/local-chain";
import { ApiClient } from "@/tests/helpers/api";
import { DB_KINDS } from "@/tests/helpers/db";
import { escrowClients, tokenBalance } from "@/tests/helpers/escrow";
import { operatorStoreAddress, payProtected } from "@/tests/helpers/escrow-payments";
import {
  newPaymentCase,
  type PaymentCase,
  startTestMarket,
  type TestMarket,
} from "@/tests/helpers/market";
import { fetchChallenge } from "@/tests/helpers/x402";
import { createMarketplaceClient, payProposal } from "@agent-marketplace/client";

const admin = privateKeyToAccount(generatePrivateKey());
const schemaOf = (url: string) => new URL(url).searchParams.get("schema")!;
const withoutSchema = (url: string) => {
  const bare = new URL(url);
  bare.searchParams.delete("schema");
  return bare.toString();
};
const HOUR = 3600;

describe.each([DB_KINDS.at(-1)!])("protected payments on %s", (kind) => {
  let market: TestMarket;
  let balanceOf: (address: Address) => Promise<bigint>;
  let storeOf: () => Promise<bigint>;

  beforeAll(async () => {
    market = await startTestMarket(kind, {
      ADMIN_ADDRESSES: admin.address,
      ESCROW_GRACE_HOURS: "1",
      ESCROW_REVIEW_HOURS: "2",
      ESCROW_DISPUTE_HOURS: "24",
      SETTLEMENT_RECONCILE_INTERVAL_SECONDS: "1",
      // Every case signs in two fresh wallets.
      RATE_LIMIT_AUTH_PER_MINUTE: "1000",
    });
    const { publicClient } = escrowClients(market.chain.rpcUrl);
    balanceOf = (address) => tokenBalance(publicClient, address);
    const storeAddress = await operatorStoreAddress(publicClient);
    storeOf = () => balanceOf(storeAddress);
  }, 180_000);
  afterAll(() => market?.stop());

  async function paidAndAccepted(): Promise<PaymentCase & { txHash: Hex }> {
    const c = await newPaymentCase(market);
    const paid = await payProtected(c.payer, `${c.settleUrl()}&mode=escrow`);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
      proposalId: c.proposalId,
      txHash: paid.body.data.txHash,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    return { ...c, txHash: paid.body.data.txHash };
  }

  const paymentOf = async (c: PaymentCase): Promise<any> =>
    (await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data;

  it("offers the auth-capture scheme with our escrow, operator and deadlines", async () => {
    const c = await newPaymentCase(market);
    const challenge = await fetchChallenge(`${c.settleUrl()}&mode=escrow`);
    expect(challenge.status).toBe(402);
    const [offer] = challenge.paymentRequired.accepts;
    expect(offer).toMatchObject({
      scheme: "auth-capture",
      amount: c.job.bidAtomic.toString(),
      payTo: c.agentWallet,
      extra: {
        authCaptureEscrow: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
        captureAuthorizer: LOCAL_ESCROW_OPERATOR_ADDRESS,
        minFeeBps: 0,
        maxFeeBps: 0,
      },
    });
    const extra = offer!.extra as { captureDeadline: number; refundDeadline: number };
    expect(extra.refundDeadline - extra.captureDeadline).toBe(30 * 86_400);
    // Pay-now stays the default: the spec's exact scheme.
    const now = await fetchChallenge(c.settleUrl());
    expect(now.paymentRequired.accepts[0]!.scheme).toBe("exact");
  });

  it("holds the payment on accept and releases it to the agent on complete", async () => {
    const storeBefore = await storeOf();
    const c = await paidAndAccepted();
    const payerAfterPay = await balanceOf(c.payer.address);
    expect(payerAfterPay).toBe(c.job.bidAtomic * 9n);
    expect(await storeOf()).toBe(storeBefore + c.job.bidAtomic);
    const held = await paymentOf(c);
    expect(held).toMatchObject({ mode: "escrow", status: "succeeded" });
    expect(held.escrow).toMatchObject({
      state: "held",
      heldUsdc: Number(c.job.bidAtomic) / 1e6,
      releasedUsdc: 0,
      escrow: LOCAL_AUTH_CAPTURE_ESCROW_ADDRESS,
      dispute: null,
    });

    const agentBefore = await balanceOf(c.agentWallet as Address);
    expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {})).status).toBe(200);
    // Not the agent's to release.
    expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/complete`, {})).status).toBe(403);
    const completed = await c.poster.post(`/api/v1/jobs/${c.job.id}/complete`, { rating: 5 });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    const released = await paymentOf(c);
    expect(released.escrow).toMatchObject({
      state: "released",
      heldUsdc: 0,
      releasedUsdc: Number(c.job.bidAtomic) / 1e6,
    });
    expect(released.escrow.transactions).toEqual([
      expect.objectContaining({ kind: "capture", status: "succeeded", txHash: expect.any(String) }),
    ]);
    expect(await balanceOf(c.agentWallet as Address)).toBe(agentBefore + c.job.bidAtomic);
    expect(await storeOf()).toBe(storeBefore);
    expect(await balanceOf(c.payer.address)).toBe(payerAfterPay);
    // Completing again moves nothing.
    expect((await c.poster.post(`/api/v1/jobs/${c.job.id}/complete`, {})).status).toBe(409);
    expect(await balanceOf(c.agentWallet as Address)).toBe(agentBefore + c.job.bidAtomic);

    const events = (await c.poster.get(`/api/v1/events?jobId=${c.job.id}`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(events).toEqual(expect.arrayContaining(["payment.held", "payment.released"]));
    expect(events).not.toContain("payment.settled");
    // The agent is told its money was released; the poster, who released it, is not.
    const typesOf = async (client: PaymentCase["poster"]) =>
      (
        (await client.get("/api/v1/notifications?limit=100")).body.data as {
          type: string;
          jobId: string;
        }[]
      )
        .filter((n) => n.jobId === c.job.id)
        .map((n) => n.type);
    expect(await typesOf(c.operator)).toContain("payment.released");
    expect(await typesOf(c.poster)).not.toContain("payment.released");
  });

  it("pays protected with the typed client's payProposal (mode escrow), accepted with its hash", async () => {
    const c = await newPaymentCase(market);
    const client = createMarketplaceClient({ baseUrl: market.server.url });
    const settlement = await payProposal(
      client,
      c.payer,
      { jobId: c.job.id, proposalId: c.proposalId },
      { mode: "escrow", maxUsdc: Number(c.job.bidAtomic) / 1e6 },
    );
    expect(settlement.amountUsdc).toBe(Number(c.job.bidAtomic) / 1e6);
    const accepted = await c.poster.post(`/api/v1/jobs/${c.job.id}/accept`, {
      proposalId: c.proposalId,
      txHash: settlement.txHash,
    });
    expect(accepted.status).toBe(200);
    expect((await paymentOf(c)).escrow.state).toBe("held");
    expect(await balanceOf(c.payer.address)).toBe(c.job.bidAtomic * 9n);
  });

  it("refuses a payment whose terms the client changed, before the operator signs", async () => {
    const c = await newPaymentCase(market);
    const url = `${c.settleUrl()}&mode=escrow`;
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const cases: [string, (r: PaymentRequirements) => PaymentRequirements, string][] = [
      [
        "receiver",
        (r) => ({ ...r, payTo: stranger }),
        "invalid_exact_evm_payload_recipient_mismatch",
      ],
      [
        "amount",
        (r) => ({ ...r, amount: "1000000" }),
        "invalid_exact_evm_payload_authorization_value_mismatch",
      ],
      [
        "operator",
        (r) => ({ ...r, extra: { ...r.extra, captureAuthorizer: stranger } }),
        "escrow_terms_mismatch",
      ],
      [
        "expiry",
        (r) => ({
          ...r,
          extra: {
            ...r.extra,
            captureDeadline: (r.extra.captureDeadline as number) + 365 * 86_400,
            refundDeadline: (r.extra.refundDeadline as number) + 365 * 86_400,
          },
        }),
        "escrow_terms_mismatch",
      ],
      ["fee", (r) => ({ ...r, extra: { ...r.extra, maxFeeBps: 10_000 } }), "escrow_terms_mismatch"],
    ];
    const before = await balanceOf(c.payer.address);
    for (const [what, tamper, code] of cases) {
      const paid = await payProtected(c.payer, url, tamper);
      expect(paid.status, what).toBe(402);
      expect(paid.body.code, what).toBe(code);
    }
    // A stranger's signature for this job is not the poster's.
    const strangerPaid = await payProtected(privateKeyToAccount(generatePrivateKey()), url);
    expect(strangerPaid.body.code).toBe("wrong_payer");
    expect(await balanceOf(c.payer.address)).toBe(before);
    expect((await c.poster.get(`/api/v1/jobs/${c.job.id}/payment`)).body.data).toBeNull();
  });

  it("answers a replayed authorization with the same settlement, never a second hold", async () => {
    const c = await newPaymentCase(market);
    const url = `${c.settleUrl()}&mode=escrow`;
    const challenge = await fetchChallenge(url);
    const requirements = challenge.paymentRequired.accepts[0]!;
    const { payload } = await new AuthCaptureEvmScheme(c.payer).createPaymentPayload(
      2,
      requirements,
    );
    const header = encodePaymentSignatureHeader({
      x402Version: 2,
      resource: challenge.paymentRequired.resource,
      accepted: requirements,
      payload,
    });
    const send = () => fetch(url, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } });
    const answers = await Promise.all([send(), send(), send()]);
    const bodies = await Promise.all(answers.map((a) => a.json()));
    const settled = bodies.filter((b) => b.data?.txHash);
    expect(settled.length).toBeGreaterThanOrEqual(1);
    expect(new Set(settled.map((b) => b.data.txHash)).size).toBe(1);
    const again = await send();
    expect(again.status).toBe(200);
    expect((await again.json()).data.txHash).toBe(settled[0].data.txHash);
    expect(await balanceOf(c.payer.address)).toBe(c.job.bidAtomic * 9n);
  });

  it("freezes a disputed payment until an admin resolves it, each way", async () => {
    const adminClient = await new ApiClient(market.server.url, admin).signIn();
    // A split below the minimum (1 USDC) reaches the agent too, but earns no badge.
    for (const [outcome, agentUsdc] of [
      ["refund", 0],
      ["split", 0.5],
      ["split", 2],
    ] as const) {
      const c = await paidAndAccepted();
      expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {})).status).toBe(200);
      const dispute = await c.poster.post(`/api/v1/jobs/${c.job.id}/dispute`, {
        reason: "the delivery is empty",
      });
      expect(dispute.status, JSON.stringify(dispute.body)).toBe(200);
      const complete = await c.poster.post(`/api/v1/jobs/${c.job.id}/complete`, {});
      expect(complete.status).toBe(409);
      expect(complete.body.code).toBe("dispute_open");
      // Only an admin resolves.
      const byPoster = await c.poster.post(`/api/v1/jobs/${c.job.id}/dispute/resolve`, {
        outcome: "refund",
        reason: "mine",
      });
      expect(byPoster.body.code).toBe("not_admin");
      const payerBefore = await balanceOf(c.payer.address);
      const agentBefore = await balanceOf(c.agentWallet as Address);
      const resolved = await adminClient.post(`/api/v1/jobs/${c.job.id}/dispute/resolve`, {
        outcome,
        reason: "looked at the thread",
        ...(outcome === "split" ? { agentUsdc } : {}),
      });
      expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
      const payment = await paymentOf(c);
      // The poster's badge comes with money that reached the agent: at least the minimum,
      // never a refund.
      expect(resolved.body.data.posterVerified).toBe(agentUsdc >= 1);
      if (outcome === "refund") {
        expect(resolved.body.data.status).toBe("cancelled");
        expect(payment.escrow).toMatchObject({ state: "refunded", heldUsdc: 0, releasedUsdc: 0 });
        expect(await balanceOf(c.payer.address)).toBe(payerBefore + c.job.bidAtomic);
        expect(await balanceOf(c.agentWallet as Address)).toBe(agentBefore);
      } else {
        expect(resolved.body.data.status).toBe("completed");
        const agentAtomic = BigInt(agentUsdc * 1e6);
        expect(payment.escrow).toMatchObject({
          state: "split",
          heldUsdc: 0,
          releasedUsdc: agentUsdc,
        });
        expect(await balanceOf(c.agentWallet as Address)).toBe(agentBefore + agentAtomic);
        expect(await balanceOf(c.payer.address)).toBe(payerBefore + c.job.bidAtomic - agentAtomic);
      }
      expect(payment.escrow.dispute).toMatchObject({
        resolution: outcome,
        reason: "the delivery is empty",
      });
      // Resolved once.
      const twice = await adminClient.post(`/api/v1/jobs/${c.job.id}/dispute/resolve`, {
        outcome: "release",
        reason: "again",
      });
      expect(twice.body.code).toBe("no_open_dispute");
    }
  });

  it("after the deadlines (the chain's clock moved): no late delivery, refunds on cancel, auto-releases an unreviewed delivery", async () => {
    // All paid before the clock moves: a client signs against the wall clock.
    const cancelCase = await paidAndAccepted();
    const autoCase = await paidAndAccepted();
    const lateAccept = await newPaymentCase(market);
    const paidLate = await payProtected(lateAccept.payer, `${lateAccept.settleUrl()}&mode=escrow`);
    expect(paidLate.status, JSON.stringify(paidLate.body)).toBe(200);
    const shownWhenPaid = (await paymentOf(lateAccept)).escrow.deliverBy;
    expect(
      (await autoCase.operator.post(`/api/v1/jobs/${autoCase.job.id}/deliver`, {})).status,
    ).toBe(200);
    const early = await cancelCase.poster.post(`/api/v1/jobs/${cancelCase.job.id}/cancel`, {});
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("job_not_cancellable");
    const agentBefore = await balanceOf(autoCase.agentWallet as Address);
    expect((await autoCase.poster.get(`/api/v1/jobs/${autoCase.job.id}`)).body.data).toMatchObject({
      status: "delivered",
      posterVerified: false,
    });

    // eta 1 day + 1 hour's grace; the review window is 2 hours.
    await market.chain.increaseTime(86_400 + HOUR + 60);

    // A late accept leaves the deadline the poster saw when paying: the review and dispute
    // windows still fit before heldUntil. Nothing can be delivered past it; the poster cancels.
    const accepted = await lateAccept.poster.post(`/api/v1/jobs/${lateAccept.job.id}/accept`, {
      proposalId: lateAccept.proposalId,
      txHash: paidLate.body.data.txHash,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await paymentOf(lateAccept)).escrow.deliverBy).toBe(shownWhenPaid);
    for (const c of [lateAccept, cancelCase]) {
      const late = await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {});
      expect(late.status, JSON.stringify(late.body)).toBe(409);
      expect(late.body.code).toBe("delivery_deadline_passed");
    }
    expect(
      (await lateAccept.poster.post(`/api/v1/jobs/${lateAccept.job.id}/cancel`, {})).status,
    ).toBe(200);

    const c = cancelCase;
    // The agent's job page offers no delivery past the deadline (the page reads the wall clock,
    // so the hold's deadline is put an hour behind it, as the chain's clock already is).
    const agentPage = async () => (await c.operator.get(`/jobs/${c.job.id}`)).body as string;
    expect(await agentPage()).toContain("Deliver the work");
    const db = new pg.Client({ connectionString: withoutSchema(market.databaseUrl!) });
    await db.connect();
    try {
      await db.query(
        `UPDATE "${schemaOf(market.databaseUrl!)}"."escrow_holds" SET "deliverBy" = $2 WHERE "jobId" = $1`,
        [c.job.id, new Date(Date.now() - HOUR * 1000).toISOString().replace("Z", "")],
      );
    } finally {
      await db.end();
    }
    const closed = await agentPage();
    expect(closed).toContain("Delivery closed");
    expect(closed).not.toContain("Deliver the work");
    expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/cancel`, {})).status).toBe(403);
    const payerBefore = await balanceOf(c.payer.address);
    const cancelled = await c.poster.post(`/api/v1/jobs/${c.job.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    expect((await paymentOf(c)).escrow).toMatchObject({
      state: "refunded",
      refundedUsdc: Number(c.job.bidAtomic) / 1e6,
    });
    expect(await balanceOf(c.payer.address)).toBe(payerBefore + c.job.bidAtomic);
    // The agent can no longer deliver, nor the poster cancel twice.
    expect((await c.operator.post(`/api/v1/jobs/${c.job.id}/deliver`, {})).status).toBe(409);
    expect((await c.poster.post(`/api/v1/jobs/${c.job.id}/cancel`, {})).status).toBe(409);
    expect(await balanceOf(c.payer.address)).toBe(payerBefore + c.job.bidAtomic);

    let payment = await paymentOf(autoCase);
    for (let i = 0; i < 60 && payment.escrow.state !== "released"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      payment = await paymentOf(autoCase);
    }
    expect(payment.escrow.state).toBe("released");
    expect(payment.escrow.transactions[0]).toMatchObject({ actor: "auto-release" });
    expect(await balanceOf(autoCase.agentWallet as Address)).toBe(
      agentBefore + autoCase.job.bidAtomic,
    );
    // Completed without its poster, who still earns the badge: the money reached the agent.
    expect((await autoCase.poster.get(`/api/v1/jobs/${autoCase.job.id}`)).body.data).toMatchObject({
      status: "completed",
      posterVerified: true,
    });
  });
});
