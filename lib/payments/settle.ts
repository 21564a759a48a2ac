import { decodePaymentSignatureHeader } from "@x402/core/http";
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  SettleResponse,
} from "@x402/core/types";
import { type Address, getAddress, isAddress, isAddressEqual } from "viem";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db";
import { conflict } from "@/lib/errors";
import { getAgentRowOrThrow } from "@/lib/marketplace/agents";
import { getJobRowOrThrow } from "@/lib/marketplace/jobs";
import { getProposalRowOrThrow } from "@/lib/marketplace/proposals";
import { atomicToUsdc, formatUsdc } from "./money";
import { getSettlementNetwork } from "./network";
import { reconcileSettlement, reconcileStalePending } from "./reconcile";
import { getResourceServer } from "./resource-server";
import {
  claimSettlementSlot,
  liveSettlementForJob,
  markSettlementFailed,
  markSettlementSucceeded,
} from "./settlements";

/** How long a signed authorization may be valid: bounds how long a slot can stay pending. */
export const MAX_TIMEOUT_SECONDS = 300;
const VALIDITY_SLACK_SECONDS = 120;

export interface SettlementData {
  txHash: string;
  network: string;
  payer: Address;
  payTo: Address;
  amountUsdc: number;
  jobId: string;
  proposalId: string;
}

export type SettleOutcome =
  | { kind: "payment_required"; reason: string; paymentRequired: PaymentRequired }
  | { kind: "settled"; data: SettlementData; paymentResponse: SettleResponse };

/** The EIP-3009 authorization inside an `exact` EVM payment payload (decimal strings). */
export interface EvmAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/**
 * The x402 payment resource for one job and proposal (POST /api/jobs/:id/settle):
 * no header → the challenge; with a PAYMENT-SIGNATURE → verify, claim the job's slot,
 * settle on chain, record the hash. Price and payee come from the database every time.
 */
export async function settleJobPayment(
  db: Db,
  input: { jobId: string; proposalId: string; paymentHeader: string | null; resourceUrl: string },
): Promise<SettleOutcome> {
  const job = await getJobRowOrThrow(db, input.jobId);
  const proposal = await getProposalRowOrThrow(db, job.id, input.proposalId);
  if (job.status !== "open") throw conflict(`the job is ${job.status.replace("_", " ")}, not open`);
  if (proposal.status !== "pending")
    throw conflict(`the proposal is ${proposal.status}, not pending`);
  await assertSlotFree(db, job.id);
  const agent = await getAgentRowOrThrow(db, proposal.agentId);

  const network = getSettlementNetwork();
  const server = await getResourceServer();
  const payTo = getAddress(agent.walletAddress);
  const requirements = await server.buildPaymentRequirements({
    scheme: "exact",
    network: network.network,
    payTo,
    price: {
      asset: network.asset,
      amount: proposal.bidAtomic.toString(),
      extra: { ...network.eip712Domain },
    },
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  });
  const challenge = async (reason: string): Promise<SettleOutcome> => ({
    kind: "payment_required",
    reason,
    paymentRequired: await server.createPaymentRequiredResponse(
      requirements,
      {
        url: input.resourceUrl,
        description: `${formatUsdc(proposal.bidAtomic)} USDC for job "${job.title}" (proposal ${proposal.id})`,
        mimeType: "application/json",
      },
      reason,
    ),
  });

  if (!input.paymentHeader) {
    return challenge(
      "payment required: sign the USDC authorization and send it as PAYMENT-SIGNATURE",
    );
  }

  let payload: PaymentPayload;
  try {
    payload = decodePaymentSignatureHeader(input.paymentHeader);
  } catch {
    return challenge("the PAYMENT-SIGNATURE header is not a valid x402 payment payload");
  }
  const required = requirements[0]!;
  const authorization = readAuthorization(payload);
  const mismatch = describeMismatch(payload, authorization, required, job.posterAddress);
  if (mismatch) return challenge(mismatch);
  const matching = server.findMatchingRequirements(requirements, payload);
  if (!matching || !authorization) {
    return challenge("the payment does not match this job's payment requirements");
  }

  const verified = await server.verifyPayment(payload, matching);
  if (!verified.isValid) {
    return challenge(explainRefusal(verified.invalidReason, verified.invalidMessage));
  }

  const payer = getAddress(authorization.from);
  const claim = await claimSettlementSlot(db, {
    jobId: job.id,
    proposalId: proposal.id,
    payer,
    payTo,
    amountAtomic: proposal.bidAtomic,
    network: network.network,
    asset: network.asset,
    authorizationNonce: authorization.nonce,
    validBefore: BigInt(authorization.validBefore),
  });

  let settled: SettleResponse;
  try {
    settled = await server.settlePayment(payload, matching);
  } catch (error) {
    // The transfer may or may not have happened: only the chain can say.
    console.error(`Settlement ${claim.id}: facilitator settle failed`, error);
    const row = await reconcileSettlement(db, claim).catch(() => claim);
    if (row.status === "succeeded" && row.txHash)
      return settledOutcome(row.txHash, network.network);
    if (row.status === "failed")
      return challenge("the payment could not be settled; sign a new one and retry");
    throw conflict("the payment is being settled; check the job again in a minute");
  }

  if (!settled.success) {
    await markSettlementFailed(db, claim.id, settled.errorReason ?? "settle refused");
    return challenge(explainRefusal(settled.errorReason, settled.errorMessage));
  }
  crashHookForTests();
  await markSettlementSucceeded(db, claim.id, settled.transaction);
  return settledOutcome(settled.transaction, network.network, settled);

  function settledOutcome(
    txHash: string,
    networkId: string,
    response?: SettleResponse,
  ): SettleOutcome {
    return {
      kind: "settled",
      data: {
        txHash: txHash.toLowerCase(),
        network: networkId,
        payer,
        payTo,
        amountUsdc: atomicToUsdc(proposal.bidAtomic),
        jobId: job.id,
        proposalId: proposal.id,
      },
      paymentResponse: response ?? {
        success: true,
        transaction: txHash,
        network: networkId as SettleResponse["network"],
        payer,
      },
    };
  }
}

/** 409 when the job's settlement slot is taken; a stale pending claim is reconciled first. */
async function assertSlotFree(db: Db, jobId: string) {
  const live = await reconcileStalePending(db, await liveSettlementForJob(db, jobId));
  if (!live || live.status === "failed") return;
  if (live.status === "succeeded") {
    throw conflict(
      `this job is already paid (txHash ${live.txHash}); accept proposal ${live.proposalId} with that hash`,
    );
  }
  throw conflict("a payment for this job is already being settled; check again shortly");
}

function readAuthorization(payload: PaymentPayload): EvmAuthorization | undefined {
  const authorization = (
    payload.payload as { authorization?: Partial<EvmAuthorization> } | undefined
  )?.authorization;
  if (!authorization) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = authorization;
  if (
    typeof from !== "string" ||
    !isAddress(from) ||
    typeof to !== "string" ||
    !isAddress(to) ||
    typeof value !== "string" ||
    !/^\d{1,78}$/.test(value) ||
    typeof validAfter !== "string" ||
    !/^\d{1,20}$/.test(validAfter) ||
    typeof validBefore !== "string" ||
    !/^\d{1,20}$/.test(validBefore) ||
    typeof nonce !== "string" ||
    !/^0x[0-9a-fA-F]{64}$/.test(nonce)
  ) {
    return undefined;
  }
  return { from, to, value, validAfter, validBefore, nonce };
}

/** A readable reason when the payment is plainly not for this job, before asking the facilitator. */
function describeMismatch(
  payload: PaymentPayload,
  authorization: EvmAuthorization | undefined,
  required: PaymentRequirements,
  poster: string,
): string | undefined {
  if (payload.x402Version !== 2) return "only x402 version 2 payments are accepted";
  const accepted = payload.accepted;
  if (!authorization) return "the payment carries no EIP-3009 authorization";
  if (accepted && (accepted.network !== required.network || accepted.scheme !== required.scheme)) {
    return `wrong network or scheme: this job is paid with ${required.scheme} on ${required.network}`;
  }
  if (accepted && !sameAddress(accepted.asset, required.asset)) return "wrong asset: pay in USDC";
  const amount = `${formatUsdc(BigInt(required.amount))} USDC`;
  if (
    authorization.value !== required.amount ||
    (accepted && accepted.amount !== required.amount)
  ) {
    return `wrong amount: this proposal costs exactly ${amount}`;
  }
  if (
    !sameAddress(authorization.to, required.payTo) ||
    (accepted && !sameAddress(accepted.payTo, required.payTo))
  ) {
    return `wrong payee: the payment must go to the agent's wallet ${required.payTo}`;
  }
  if (!sameAddress(authorization.from, poster)) {
    return "wrong payer: only the job's poster can pay for it";
  }
  const now = Math.floor(Date.now() / 1000);
  if (BigInt(authorization.validBefore) <= BigInt(now)) {
    return "the payment authorization has expired; sign a new one";
  }
  if (
    BigInt(authorization.validBefore) > BigInt(now + MAX_TIMEOUT_SECONDS + VALIDITY_SLACK_SECONDS)
  ) {
    return `the payment authorization is valid for too long (at most ${MAX_TIMEOUT_SECONDS} seconds)`;
  }
  return undefined;
}

const REFUSALS: [RegExp, string][] = [
  [
    /insufficient_funds|insufficient.*balance/i,
    "insufficient balance: the payer does not hold enough USDC",
  ],
  [
    /nonce_already_used|already used|replay/i,
    "replayed: this authorization was already used; sign a new one",
  ],
  [/valid_before|expired/i, "the payment authorization has expired; sign a new one"],
  [/valid_after|not yet valid/i, "the payment authorization is not valid yet"],
  [
    /signature/i,
    "invalid signature: the authorization was not signed by the payer for these terms",
  ],
  [/recipient|pay_?to/i, "wrong payee: the payment must go to the agent's wallet"],
  [/value|amount/i, "wrong amount: the payment must be exactly the bid"],
];

function explainRefusal(reason: string | undefined, message?: string): string {
  const text = `${reason ?? ""} ${message ?? ""}`;
  for (const [pattern, readable] of REFUSALS)
    if (pattern.test(text)) return `${readable} (${reason})`;
  return `the payment was refused${reason ? ` (${reason})` : ""}`;
}

function sameAddress(a: string, b: string): boolean {
  return isAddress(a) && isAddress(b) && isAddressEqual(a, b);
}

function crashHookForTests() {
  const config = getConfig();
  if (config.ENABLE_TEST_HOOKS === "true" && config.TEST_CRASH_AFTER_SETTLE === "true") {
    console.error("TEST_CRASH_AFTER_SETTLE: dying between the on-chain settle and the record");
    process.kill(process.pid, "SIGKILL");
  }
}
