// The settle path in-process: settleJobPayment against a real local chain and the in-process
// facilitator, on PGlite. The invariant: the poster's USDC moves exactly once or not at all,
// to the accepted agent, for the bid, and the ledger says which. (tests/http checks the
// same over HTTP, with faults injected between the processes.)
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { NextRequest } from "next/server";
import { beforeAll } from "vitest";
import { describe, expect, it } from "@/tests/helpers/fixture";
import type { LocalAccount } from "viem";
import { POST as settleRoute } from "@/app/api/jobs/[id]/settle/route";
import { LOCAL_NETWORK, LOCAL_TOKEN_ADDRESS, mintTestUsdc } from "@/dev/local-chain";
import { markAppServer } from "@/lib/platform/client-address";
import { DomainError } from "@/lib/platform/errors";
import { rejectProposal } from "@/lib/marketplace/proposals";
import {
  type InProcessMarket,
  jobWithBid,
  newWallet,
  resourceUrl,
  settle,
  signedPayment,
} from "@/tests/helpers/in-process";
import { signPaymentHeader, tokenReader } from "@/tests/helpers/x402";
import { getJobPayment } from "../ledger/payment-view";
import { reconcileSettlement } from "../reconcile/settlement";
import { settleJobPayment } from "./settle";

const poster = newWallet();
const operator = newWallet();

// A stalled chain answers "pending" after 2 s instead of the production 60.
it.override("marketEnv", {
  SETTLEMENT_CONFIRMATION_TIMEOUT_SECONDS: "2",
  // The float-error cases below bid fractions of a cent.
  MIN_AMOUNT_USDC: "0.000001",
});

const balances = async (market: InProcessMarket, ...accounts: LocalAccount[]) => {
  const token = tokenReader(market.chain.rpcUrl);
  return Promise.all(accounts.map((account) => token.balanceOf(account.address)));
};

async function attempt(
  market: InProcessMarket,
  target: { jobId: string; proposalId: string },
  paymentHeader: string,
) {
  return settleJobPayment(market.db, {
    ...target,
    paymentHeader,
    resourceUrl: resourceUrl(target),
  });
}

async function newTarget(market: InProcessMarket, bidUsdc = 7.25) {
  const { job, proposal } = await jobWithBid(market.db, poster.address, operator.address, bidUsdc);
  return { jobId: job.id, proposalId: proposal.id };
}

describe("settleJobPayment", () => {
  it("answers no header with the bid's terms: exact, local USDC, the agent's wallet", async ({
    market,
  }) => {
    const target = await newTarget(market, 3.5);
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

  it("moves the bid once from poster to agent; the same header again answers the same hash", async ({
    market,
  }) => {
    const target = await newTarget(market);
    const header = await signedPayment(market, poster, target);
    const second = await signedPayment(market, poster, target);
    const before = await balances(market, poster, operator);
    const txHash = await settle(market, target, header);
    expect(await settle(market, target, header)).toBe(txHash);
    const after = await balances(market, poster, operator);
    expect(before[0]! - after[0]!).toBe(7_250_000n);
    expect(after[1]! - before[1]!).toBe(7_250_000n);
    expect(await getJobPayment(market.db, target.jobId)).toMatchObject({
      status: "succeeded",
      txHash,
      amountUsdc: 7.25,
      payer: poster.address,
      payTo: operator.address,
    });
    // Another authorization for the paid job is refused before anything is sent, and a
    // client asking for a challenge is told the job is paid instead of being given one.
    await expect(attempt(market, target, second)).rejects.toMatchObject({ code: "already_paid" });
    await expect(
      settleJobPayment(market.db, {
        ...target,
        paymentHeader: null,
        resourceUrl: resourceUrl(target),
      }),
    ).rejects.toMatchObject({ status: 409, code: "already_paid" });
  });

  it.for([3.5, 0.29, 8.2, 1.005, 0.000001, 999_999_999.999999])(
    "challenges a bid of %s USDC for exactly that many atomic units (no float error)",
    async (bid, { market }) => {
      const target = await newTarget(market, bid);
      const outcome = await settleJobPayment(market.db, {
        ...target,
        paymentHeader: null,
        resourceUrl: resourceUrl(target),
      });
      if (outcome.kind !== "payment_required") throw new Error("expected a challenge");
      const [whole, fraction = ""] = String(bid).split(".");
      expect(outcome.paymentRequired.accepts[0]!.amount).toBe(
        (BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0"))).toString(),
      );
    },
  );

  it.for([
    [
      "a wrong amount",
      { signed: { value: "1" }, sent: { value: "1" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
      "wrong amount: the payment must be exactly the bid (this proposal costs exactly 7.25 USDC)",
    ],
    [
      "terms changed after signing",
      { sent: { value: "1" } },
      "invalid_exact_evm_payload_authorization_value_mismatch",
      "wrong amount: the payment must be exactly the bid (this proposal costs exactly 7.25 USDC)",
    ],
    [
      "another payee",
      { signed: { to: newWallet().address }, sent: { to: newWallet().address } },
      "invalid_exact_evm_payload_recipient_mismatch",
      `wrong payee: the payment must go to the agent's wallet (pay OPERATOR)`,
    ],
    [
      "an expired authorization",
      { signed: { validBefore: "1000" }, sent: { validBefore: "1000" } },
      "invalid_exact_evm_payload_authorization_valid_before",
      "the payment authorization has expired; sign a new one",
    ],
  ] as const)(
    "refuses %s with a 402 and moves nothing",
    async ([_, breakage, code, reason], { market }) => {
      const target = await newTarget(market);
      const header = await signedPayment(market, poster, target, breakage);
      const before = await balances(market, poster, operator);
      // The reason is ours, with its detail: the check before the facilitator refused it.
      expect(await attempt(market, target, header)).toMatchObject({
        kind: "payment_required",
        code,
        reason: reason.replace("OPERATOR", operator.address),
      });
      expect(await balances(market, poster, operator)).toEqual(before);
      expect(await getJobPayment(market.db, target.jobId)).toBeNull();
    },
  );

  const now = () => Math.floor(Date.now() / 1000);
  it.for([
    [
      "another network",
      () => ({ accepted: { network: "eip155:8453" } }),
      "invalid_network",
      "wrong network (this job is paid on eip155:31337)",
    ],
    [
      "another asset",
      () => ({ accepted: { asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" } }),
      "wrong_asset",
      `wrong asset: pay in USDC (the asset is ${LOCAL_TOKEN_ADDRESS})`,
    ],
    [
      "another scheme",
      () => ({ accepted: { scheme: "upto" } }),
      "invalid_scheme",
      "wrong scheme: this job is paid with the exact scheme",
    ],
    [
      "a validAfter in the future",
      () => ({ signed: { validAfter: String(now() + 3_600) } }),
      "invalid_exact_evm_payload_authorization_valid_after",
      "the payment authorization is not valid yet",
    ],
    [
      "a validity longer than the challenge allows",
      () => ({ signed: { validBefore: String(now() + 3_600) } }),
      "invalid_exact_evm_payload_authorization_valid_before",
      "the payment authorization has expired; sign a new one (valid for too long: at most 300 seconds)",
    ],
  ] as const)(
    "refuses %s before asking the facilitator, with its reason",
    async ([_, breakage, code, reason], { market }) => {
      const target = await newTarget(market);
      const header = await signedPayment(market, poster, target, breakage());
      const before = await balances(market, poster, operator);
      expect(await attempt(market, target, header)).toMatchObject({
        kind: "payment_required",
        code,
        reason,
      });
      expect(await balances(market, poster, operator)).toEqual(before);
      expect(await getJobPayment(market.db, target.jobId)).toBeNull();
    },
  );

  it("refuses a payment of another x402 version with a 402 it can act on", async ({ market }) => {
    const target = await newTarget(market);
    const header = await signedPayment(market, poster, target);
    const v1 = { ...JSON.parse(Buffer.from(header, "base64").toString()), x402Version: 1 };
    expect(
      await attempt(market, target, Buffer.from(JSON.stringify(v1)).toString("base64")),
    ).toMatchObject({ kind: "payment_required", code: "invalid_x402_version" });
  });

  it.for([
    ["not base64 JSON", () => "%%%not-base64%%%"],
    [
      "a numeric signature",
      (valid: any) => ({ ...valid, payload: { ...valid.payload, signature: 12345 } }),
    ],
    [
      "an authorization without its nonce",
      (valid: any) => ({
        ...valid,
        payload: {
          ...valid.payload,
          authorization: { ...valid.payload.authorization, nonce: undefined },
        },
      }),
    ],
  ] as const)(
    "answers a malformed header (%s) with 400 invalid_payload, nothing claimed",
    async ([_, build], { market }) => {
      const target = await newTarget(market);
      const valid = JSON.parse(
        Buffer.from(await signedPayment(market, poster, target), "base64").toString(),
      );
      const built = build(valid);
      const header =
        typeof built === "string" ? built : Buffer.from(JSON.stringify(built)).toString("base64");
      await expect(attempt(market, target, header)).rejects.toMatchObject({
        status: 400,
        code: "invalid_payload",
        message: expect.stringMatching(/^the PAYMENT-SIGNATURE header is not a valid x402 payment/),
      });
      expect(await getJobPayment(market.db, target.jobId)).toBeNull();
    },
  );

  it("refuses a job that is not open (409 job_not_open) without even a challenge", async ({
    market,
  }) => {
    // A job out of `open` with its bid still pending and no settlement: only the state check
    // stands between it and a payment (its state is set directly by the test).
    const target = await newTarget(market);
    const header = await signedPayment(market, poster, target);
    await market.db.job.update({ where: { id: target.jobId }, data: { status: "in_progress" } });
    const notOpen = { status: 409, code: "job_not_open" };
    await expect(
      settleJobPayment(market.db, {
        ...target,
        paymentHeader: null,
        resourceUrl: resourceUrl(target),
      }),
    ).rejects.toMatchObject(notOpen);
    const before = await balances(market, poster, operator);
    await expect(attempt(market, target, header)).rejects.toMatchObject(notOpen);
    expect(await balances(market, poster, operator)).toEqual(before);
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });

  it("refuses a used authorization sent to another job: on other terms, and on the same terms", async ({
    market,
  }) => {
    const first = await newTarget(market);
    const header = await signedPayment(market, poster, first);
    await settle(market, first, header);
    // Another price: the replay is named for what it is, not as a wrong amount.
    const cheaper = await newTarget(market, 3.5);
    expect(await attempt(market, cheaper, header)).toMatchObject({
      kind: "payment_required",
      code: "authorization_already_used",
    });
    // The same payee and price, so the authorization's terms fit this job too.
    const twin = await newTarget(market);
    const before = await balances(market, poster, operator);
    expect(await attempt(market, twin, header)).toMatchObject({
      kind: "payment_required",
      code: "authorization_already_used",
    });
    expect(await balances(market, poster, operator)).toEqual(before);
    expect(await getJobPayment(market.db, twin.jobId)).toBeNull();
    expect(await getJobPayment(market.db, cheaper.jobId)).toBeNull();
  });

  it("refuses a signature the payer did not make, and a payer who is not the poster", async ({
    market,
  }) => {
    const target = await newTarget(market);
    const stranger = newWallet();
    // Signed by the stranger, claiming to be from the poster.
    const forged = await signedPayment(market, stranger, target, {
      signed: { from: poster.address },
      sent: { from: poster.address },
    });
    expect(await attempt(market, target, forged)).toMatchObject({
      code: "invalid_exact_evm_payload_signature",
    });
    const notPoster = await signedPayment(market, stranger, target);
    expect(await attempt(market, target, notPoster)).toMatchObject({
      code: "wrong_payer",
      reason: "wrong payer: only the job's poster can pay for it",
    });
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });

  it("refuses a payer without the funds, leaving the slot free for a funded retry", async ({
    market,
  }) => {
    const target = await newTarget(market);
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
    expect(await attempt(market, brokeTarget, header)).toMatchObject({
      code: "insufficient_funds",
    });
    expect(await getJobPayment(market.db, brokeTarget.jobId)).toBeNull();
    // The other job is untouched and pays normally.
    await settle(market, target, await signedPayment(market, poster, target));
  });

  it("refuses a rejected proposal (409) before asking the chain", async ({ market }) => {
    const target = await newTarget(market);
    const header = await signedPayment(market, poster, target);
    await rejectProposal(market.db, poster.address, target.jobId, target.proposalId);
    await expect(attempt(market, target, header)).rejects.toMatchObject({
      status: 409,
      code: "proposal_not_pending",
    });
  });

  it("keeps the slot while the chain is stalled (409 pending), then records the one transfer", async ({
    market,
  }) => {
    const target = await newTarget(market);
    const header = await signedPayment(market, poster, target);
    const other = await signedPayment(market, poster, target);
    const before = await balances(market, poster, operator);
    await market.chain.pauseMining();
    try {
      const stalled = await attempt(market, target, header).catch((error: unknown) => error);
      expect(stalled).toBeInstanceOf(DomainError);
      expect(stalled).toMatchObject({ status: 409, code: "settlement_pending" });
      // A second authorization for the same job waits behind the first: never two transfers.
      await expect(attempt(market, target, other)).rejects.toMatchObject({
        code: "settlement_pending",
      });
      expect(await getJobPayment(market.db, target.jobId)).toMatchObject({ status: "pending" });
    } finally {
      await market.chain.resumeMining();
    }
    await market.chain.mine();
    const row = await market.db.settlement.findFirstOrThrow({ where: { jobId: target.jobId } });
    const settled = await reconcileSettlement(market.db, row);
    expect(settled.status).toBe("succeeded");
    const after = await balances(market, poster, operator);
    expect(before[0]! - after[0]!).toBe(7_250_000n);
    expect(after[1]! - before[1]!).toBe(7_250_000n);
    // The payer's retry of the same header now gets the recorded hash.
    expect(await settle(market, target, header)).toBe(settled.txHash);
  });
});

describe("the settle route (app/api/jobs/[id]/settle) with @x402/fetch, in-process", () => {
  // The product's own route handler, called as Next.js calls it (no HTTP server): the payer
  // is @x402/fetch as docs/payments.md shows it.
  beforeAll(() => markAppServer());
  const routeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new NextRequest(new Request(input, init));
    const id = /\/api\/jobs\/([^/]+)\/settle/.exec(request.nextUrl.pathname)![1]!;
    return settleRoute(request, { params: Promise.resolve({ id }) });
  }) as typeof fetch;
  const url = (target: { jobId: string; proposalId: string }) =>
    `http://127.0.0.1/api/jobs/${target.jobId}/settle?proposalId=${target.proposalId}`;

  it("pays with spend controls that allow the local token", async ({ market }) => {
    const target = await newTarget(market, 3);
    await mintTestUsdc(market.chain.rpcUrl, poster.address, 3_000_000n);
    const before = await balances(market, poster, operator);
    const pay = wrapFetchWithPayment(
      routeFetch,
      x402Client.fromConfig({
        schemes: [{ network: LOCAL_NETWORK, client: new ExactEvmScheme(poster) }],
        spendControls: {
          allowedAssets: [
            { network: LOCAL_NETWORK, asset: LOCAL_TOKEN_ADDRESS, maxAmountPerPayment: "3000000" },
          ],
        },
      }),
    );
    const response = await pay(url(target), { method: "POST" });
    expect(response.status).toBe(200);
    const { data } = await response.json();
    expect(decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
      success: true,
      payer: poster.address,
      transaction: data.txHash,
    });
    const after = await balances(market, poster, operator);
    expect([before[0]! - after[0]!, after[1]! - before[1]!]).toEqual([3_000_000n, 3_000_000n]);
    expect(await getJobPayment(market.db, target.jobId)).toMatchObject({
      status: "succeeded",
      txHash: data.txHash,
    });
  });

  it("default spend controls refuse the local token (not a known asset): nothing is sent", async ({
    market,
  }) => {
    const target = await newTarget(market, 3);
    const pay = wrapFetchWithPayment(
      routeFetch,
      x402Client.fromConfig({
        schemes: [{ network: LOCAL_NETWORK, client: new ExactEvmScheme(poster) }],
      }),
    );
    await expect(pay(url(target), { method: "POST" })).rejects.toThrow(/rejected by spendControls/);
    expect(await getJobPayment(market.db, target.jobId)).toBeNull();
  });
});
