// The settle path in-process: settleJobPayment against a real local chain and the in-process
// facilitator, on PGlite. The invariant: the poster's USDC moves exactly once or not at all,
// to the accepted agent, for the bid, and the ledger says which. (tests/http checks the
// same over HTTP, with faults injected between the processes.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalAccount } from "viem";
import { DomainError } from "@/lib/errors";
import { rejectProposal } from "@/lib/marketplace/proposals";
import {
  type InProcessMarket,
  jobWithBid,
  newWallet,
  resourceUrl,
  settle,
  signedPayment,
  startInProcessMarket,
} from "@/tests/helpers/in-process";
import { signPaymentHeader, tokenReader } from "@/tests/helpers/x402";
import { getJobPayment } from "./payment-view";
import { reconcileSettlement } from "./reconcile";
import { settleJobPayment } from "./settle";

let market: InProcessMarket;
let poster: LocalAccount;
let operator: LocalAccount;

beforeAll(async () => {
  // A stalled chain answers "pending" after 2 s instead of the production 60.
  market = await startInProcessMarket({ SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2" });
  [poster, operator] = [newWallet(), newWallet()];
});
afterAll(() => market?.stop());

const balances = async (...accounts: LocalAccount[]) => {
  const token = tokenReader(market.chain.rpcUrl);
  return Promise.all(accounts.map((account) => token.balanceOf(account.address)));
};

async function attempt(target: { jobId: string; proposalId: string }, paymentHeader: string) {
  return settleJobPayment(market.db, {
    ...target,
    paymentHeader,
    resourceUrl: resourceUrl(target),
  });
}

async function newTarget(bidUsdc = 7.25) {
  const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address, bidUsdc);
  return { jobId: job.id, proposalId: proposal.id };
}

describe("settleJobPayment", () => {
  it("answers no header with the bid's terms: exact, local USDC, the agent's wallet", async () => {
    const target = await newTarget(3.5);
    const outcome = await settleJobPayment(market.db, {
      ...target,
      paymentHeader: null,
      resourceUrl: resourceUrl(target),
    });
    expect(outcome).toMatchObject({ kind: "payment_required", code: "payment_required" });
    if (outcome.kind !== "payment_required") return;
    expect(outcome.paymentRequired.accepts).toEqual([
      expect.objectContaining({
        scheme: "exact",
        network: "eip155:31337",
        amount: "3500000",
        payTo: operator.address,
      }),
    ]);
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });

  it("moves the bid once from poster to agent; the same header again answers the same hash", async () => {
    const target = await newTarget();
    const header = await signedPayment(market, poster, target);
    const second = await signedPayment(market, poster, target);
    const before = await balances(poster, operator);
    const txHash = await settle(market, target, header);
    expect(await settle(market, target, header)).toBe(txHash);
    const after = await balances(poster, operator);
    expect(before[0]! - after[0]!).toBe(7_250_000n);
    expect(after[1]! - before[1]!).toBe(7_250_000n);
    expect(await getJobPayment(market.db, target.jobId)).toMatchObject({
      status: "succeeded",
      txHash,
      amountUsdc: 7.25,
      payer: poster.address,
      payTo: operator.address,
    });
    // Another authorization for the paid job is refused before anything is sent.
    await expect(attempt(target, second)).rejects.toMatchObject({ code: "already_paid" });
  });

  it.each([
    [
      "a wrong amount",
      { signed: { value: "1" }, sent: { value: "1" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    [
      "terms changed after signing",
      { sent: { value: "1" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
    ],
    [
      "another payee",
      { signed: { to: newWallet().address }, sent: { to: newWallet().address } },
      "invalid_exact_evm_payload_recipient_mismatch",
    ],
    [
      "an expired authorization",
      { signed: { validBefore: "1000" }, sent: { validBefore: "1000" } },
      "invalid_exact_evm_payload_authorization_valid_before",
    ],
  ] as const)("refuses %s with a 402 and moves nothing", async (_, breakage, code) => {
    const target = await newTarget();
    const header = await signedPayment(market, poster, target, breakage);
    const before = await balances(poster, operator);
    expect(await attempt(target, header)).toMatchObject({ kind: "payment_required", code });
    expect(await balances(poster, operator)).toEqual(before);
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });

  it("refuses a signature the payer did not make, and a payer who is not the poster", async () => {
    const target = await newTarget();
    const stranger = newWallet();
    // Signed by the stranger, claiming to be from the poster.
    const forged = await signedPayment(market, stranger, target, {
      signed: { from: poster.address },
      sent: { from: poster.address },
    });
    expect(await attempt(target, forged)).toMatchObject({
      code: "invalid_exact_evm_payload_signature",
    });
    const notPoster = await signedPayment(market, stranger, target);
    expect(await attempt(target, notPoster)).toMatchObject({ code: "wrong_payer" });
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });

  it("refuses a payer without the funds, leaving the slot free for a funded retry", async () => {
    const target = await newTarget();
    const broke = newWallet();
    // The header is signed for a poster who holds nothing.
    const { job, proposal } = await jobWithBid(market.db, broke.address, operator.address);
    const brokeTarget = { jobId: job.id, proposalId: proposal.id };
    const challenge = await settleJobPayment(market.db, {
      ...brokeTarget,
      paymentHeader: null,
      resourceUrl: resourceUrl(brokeTarget),
    });
    if (challenge.kind !== "payment_required") throw new Error("expected a challenge");
    const header = await signPaymentHeader(broke, challenge.paymentRequired);
    expect(await attempt(brokeTarget, header)).toMatchObject({ code: "insufficient_funds" });
    expect(await getJobPayment(market.db, brokeTarget.jobId)).toBeNull();
    // The other job is untouched and pays normally.
    await settle(market, target, await signedPayment(market, poster, target));
  });

  it("refuses a rejected proposal (409) before asking the chain", async () => {
    const target = await newTarget();
    const header = await signedPayment(market, poster, target);
    await rejectProposal(market.db, poster.address, target.jobId, target.proposalId);
    await expect(attempt(target, header)).rejects.toMatchObject({
      status: 409,
      code: "proposal_not_pending",
    });
  });

  it("keeps the slot while the chain is stalled (409 pending), then records the one transfer", async () => {
    const target = await newTarget();
    const header = await signedPayment(market, poster, target);
    const other = await signedPayment(market, poster, target);
    const before = await balances(poster, operator);
    await market.chain.rpc("miner_stop");
    try {
      const stalled = await attempt(target, header).catch((error: unknown) => error);
      expect(stalled).toBeInstanceOf(DomainError);
      expect(stalled).toMatchObject({ status: 409, code: "settlement_pending" });
      // A second authorization for the same job waits behind the first: never two transfers.
      await expect(attempt(target, other)).rejects.toMatchObject({ code: "settlement_pending" });
      expect(await getJobPayment(market.db, target.jobId)).toMatchObject({ status: "pending" });
    } finally {
      await market.chain.rpc("miner_start");
    }
    await market.chain.rpc("evm_mine");
    const row = await market.db.settlement.findFirstOrThrow({ where: { jobId: target.jobId } });
    const settled = await reconcileSettlement(market.db, row);
    expect(settled.status).toBe("succeeded");
    const after = await balances(poster, operator);
    expect(before[0]! - after[0]!).toBe(7_250_000n);
    expect(after[1]! - before[1]!).toBe(7_250_000n);
    // The payer's retry of the same header now gets the recorded hash.
    expect(await settle(market, target, header)).toBe(settled.txHash);
  });
});
