// The steps of the settle pipeline that read or write the ledger, one describe each, against
// a real local chain, the in-process facilitator and PGlite: replay, preconditions, verify,
// claim (and the lost race), settle and record. settle.test.ts runs them together.
import { createWalletClient, getAddress, http, type LocalAccount } from "viem";
import { testUsdcAbi } from "@/dev/contracts";
import { LOCAL_TOKEN_ADDRESS } from "@/lib/payments/chain/local-network";
import { getSettlementNetwork } from "@/lib/payments/chain/network";
import { reconcileSettlement } from "@/lib/payments/reconcile/settlement";
import { describe, expect, it } from "@/tests/helpers/fixture";
import {
  type InProcessMarket,
  jobWithBid,
  newWallet,
  resourceUrl,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { signPaymentHeader, tokenReader } from "@/tests/helpers/x402";
import { parsePaymentHeader } from "../payment-header";
import { paymentRequirementsFor, resourceServerOrUnavailable } from "../requirements";
import { settleJobPayment } from "../settle";
import { claimSlot, currentBlock, resolveLostClaim } from "./claim";
import { assertPayable } from "./preconditions";
import { recordAttempt } from "./record";
import { replayAuthorization } from "./replay";
import { submitSettlement } from "./submit";
import { loadTarget } from "./target";
import { verifyWithFacilitator } from "./verify";

const poster = newWallet();
const operator = newWallet();

async function newTarget(market: InProcessMarket, payer: LocalAccount = poster) {
  const { job, proposal } = await jobWithBid(market.db, payer.address, operator.address);
  return { jobId: job.id, proposalId: proposal.id };
}

async function paymentFor(
  market: InProcessMarket,
  ids: { jobId: string; proposalId: string },
  payer: LocalAccount = poster,
) {
  const raw = await signedPayment(market, payer, ids);
  const header = parsePaymentHeader(raw);
  const target = await loadTarget(market.db, ids);
  const payTo = getAddress(target.proposal.payeeAddress);
  const required = await paymentRequirementsFor({
    payTo,
    amountAtomic: target.proposal.bidAtomic,
  });
  return { raw, header, target, payTo, required };
}

describe("replay: what the ledger knows of an authorization", () => {
  it("never used → nothing; settled → the row; used elsewhere → authorization_already_used", async ({
    market,
  }) => {
    const ids = await newTarget(market);
    const { raw, header, target } = await paymentFor(market, ids);
    expect(await replayAuthorization(market.db, target, header)).toBeUndefined();
    const txHash = await settle(market, ids, raw);
    expect(await replayAuthorization(market.db, target, header)).toMatchObject({
      kind: "settled",
      row: { txHash, status: "succeeded" },
    });
    const elsewhere = await loadTarget(market.db, await newTarget(market));
    expect(await replayAuthorization(market.db, elsewhere, header)).toEqual({
      kind: "refused",
      code: "authorization_already_used",
    });
  });

  it("a failed attempt of this signature → settlement_failed with the failed response", async ({
    market,
  }) => {
    const { header, target, payTo } = await paymentFor(market, await newTarget(market));
    const claimed = await claimSlot(market.db, target, header, payTo, await currentBlock());
    if (!("claim" in claimed)) throw new Error("expected the claim");
    await market.db.settlement.update({
      where: { id: claimed.claim.id },
      data: { status: "failed", failureCode: "expired" },
    });
    expect(await replayAuthorization(market.db, target, header)).toMatchObject({
      kind: "refused",
      code: "settlement_failed",
      response: { success: false, errorReason: "expired" },
    });
  });
});

describe("preconditions: is the bid payable at all", () => {
  it("an open job with a pending bid to a consenting payee passes", async ({ market }) => {
    await expect(
      assertPayable(market.db, await loadTarget(market.db, await newTarget(market))),
    ).resolves.toBeUndefined();
  });

  it("a paid job → already_paid; a rejected bid → proposal_not_pending", async ({ market }) => {
    const ids = await newTarget(market);
    await settle(market, ids, await signedPayment(market, poster, ids));
    await expect(assertPayable(market.db, await loadTarget(market.db, ids))).rejects.toMatchObject({
      status: 409,
      code: "already_paid",
    });
    const rejected = await newTarget(market);
    await market.db.proposal.update({
      where: { id: rejected.proposalId },
      data: { status: "rejected" },
    });
    await expect(
      assertPayable(market.db, await loadTarget(market.db, rejected)),
    ).rejects.toMatchObject({
      code: "proposal_not_pending",
    });
  });

  it("a bid left from before the rules: paying oneself → self_payment; an unconsented payee → payee_consent_pending", async ({
    market,
  }) => {
    const self = await newTarget(market);
    await market.db.proposal.update({
      where: { id: self.proposalId },
      data: { payeeAddress: poster.address },
    });
    await expect(assertPayable(market.db, await loadTarget(market.db, self))).rejects.toMatchObject(
      {
        code: "self_payment",
      },
    );
    const stranger = newWallet();
    const unconsented = await newTarget(market);
    await market.db.proposal.update({
      where: { id: unconsented.proposalId },
      data: { payeeAddress: stranger.address },
    });
    await expect(
      assertPayable(market.db, await loadTarget(market.db, unconsented)),
    ).rejects.toMatchObject({
      code: "payee_consent_pending",
    });
  });
});

describe("verify: the facilitator's check, moving nothing", () => {
  it("a funded payer passes; a payer without the funds → insufficient_funds", async ({
    market,
  }) => {
    const server = await resourceServerOrUnavailable();
    const funded = await paymentFor(market, await newTarget(market));
    expect(await verifyWithFacilitator(server, funded.header, funded.required)).toBeUndefined();
    // The broke poster's authorization is signed without the bid minted to it first.
    const broke = newWallet();
    const ids = await newTarget(market, broke);
    const challenge = await settleJobPayment(market.db, {
      ...ids,
      paymentHeader: null,
      resourceUrl: resourceUrl(ids),
    });
    if (challenge.kind !== "payment_required") throw new Error("expected a challenge");
    const header = parsePaymentHeader(await signPaymentHeader(broke, challenge.paymentRequired));
    expect(
      await verifyWithFacilitator(server, header, challenge.paymentRequired.accepts[0]!),
    ).toMatchObject({ code: "insufficient_funds" });
  });
});

describe("claim: one slot per job, the lost race resolved through the ledger", () => {
  it("the first claim takes the slot; the same authorization again loses to it (pending)", async ({
    market,
  }) => {
    const { header, target, payTo } = await paymentFor(market, await newTarget(market));
    const first = await claimSlot(market.db, target, header, payTo, await currentBlock());
    expect(first).toMatchObject({ claim: { status: "pending", jobId: target.job.id } });
    const again = await claimSlot(market.db, target, header, payTo, await currentBlock());
    expect(again).toMatchObject({ lost: { kind: "pending", row: { status: "pending" } } });
  });

  it("another authorization for a job whose slot is taken → pending with the winner", async ({
    market,
  }) => {
    const ids = await newTarget(market);
    const a = await paymentFor(market, ids);
    const b = await paymentFor(market, ids);
    const won = await claimSlot(market.db, a.target, a.header, a.payTo, await currentBlock());
    if (!("claim" in won)) throw new Error("expected the claim");
    expect(await claimSlot(market.db, b.target, b.header, b.payTo, await currentBlock())).toEqual({
      lost: { kind: "pending", row: expect.objectContaining({ id: won.claim.id }) },
    });
  });

  it("another authorization for a job already paid → 409 already_paid", async ({ market }) => {
    const ids = await newTarget(market);
    const late = await paymentFor(market, ids);
    await settle(market, ids, await signedPayment(market, poster, ids));
    await expect(resolveLostClaim(market.db, late.target, late.header)).rejects.toMatchObject({
      status: 409,
      code: "already_paid",
    });
  });
});

describe("settle and record: the chain decides, the ledger records it once", () => {
  it("a claimed payment moves the bid once and is recorded succeeded with its hash", async ({
    market,
  }) => {
    const { header, target, payTo, required } = await paymentFor(market, await newTarget(market));
    const token = tokenReader(market.chain.rpcUrl);
    const before = await token.balanceOf(payTo);
    const claimed = await claimSlot(market.db, target, header, payTo, await currentBlock());
    if (!("claim" in claimed)) throw new Error("expected the claim");
    const submitted = await submitSettlement(await resourceServerOrUnavailable(), header, required);
    expect(submitted).toMatchObject({ response: { success: true } });
    expect(submitted.note).toBeUndefined();
    const resolution = await recordAttempt(market.db, claimed.claim, submitted);
    expect(resolution).toMatchObject({
      kind: "settled",
      row: { status: "succeeded", txHash: submitted.response!.transaction },
    });
    // The claiming request let go of the row: the reconciler may take it from now on.
    expect(
      await market.db.settlement.findUniqueOrThrow({ where: { id: claimed.claim.id } }),
    ).toMatchObject({ inFlightUntil: null });
    expect((await token.balanceOf(payTo)) - before).toBe(target.proposal.bidAtomic);
  });

  it("the payer's own broadcast, mined between verify and the claim: found from the block read before verify", async ({
    market,
  }) => {
    const { header, target, payTo } = await paymentFor(market, await newTarget(market));
    // What settleJobPayment reads before its verify step sees the authorization unused.
    const claimBlock = await currentBlock();
    // Whoever holds the signed authorization sends it first; a block follows.
    const sender = newWallet();
    await market.chain.setBalance(sender.address, 10n ** 18n);
    const { authorization: a } = header;
    const own = await createWalletClient({
      account: sender,
      chain: getSettlementNetwork().chain,
      transport: http(market.chain.rpcUrl),
    }).writeContract({
      address: LOCAL_TOKEN_ADDRESS,
      abi: testUsdcAbi,
      functionName: "transferWithAuthorization",
      args: [
        a.from,
        a.to,
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce,
        header.signature,
      ],
    });
    await market.chain.mine();
    const claimed = await claimSlot(market.db, target, header, payTo, claimBlock);
    if (!("claim" in claimed)) throw new Error("expected the claim");
    // Our own send is refused (the authorization is used); the chain shows the payer's.
    const reconciled = await reconcileSettlement(market.db, claimed.claim);
    expect(reconciled).toMatchObject({ status: "succeeded", txHash: own.toLowerCase() });
  });

  it("a facilitator that said no while the chain shows nothing: still pending, the note kept", async ({
    market,
  }) => {
    const { header, target, payTo } = await paymentFor(market, await newTarget(market));
    const claimed = await claimSlot(market.db, target, header, payTo, await currentBlock());
    if (!("claim" in claimed)) throw new Error("expected the claim");
    const resolution = await recordAttempt(market.db, claimed.claim, { note: "connection reset" });
    expect(resolution).toMatchObject({ kind: "pending", row: { status: "pending" } });
  });
});
