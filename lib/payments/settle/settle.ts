import "server-only";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { type Address, getAddress, isAddressEqual, recoverTypedDataAddress } from "viem";
import type { Db } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import type { Prisma, Settlement } from "@/lib/generated/prisma/client";
import { getJobRowOrThrow } from "@/lib/kernel/rows";
import { checkRole, checkState } from "@/lib/kernel/lifecycle";
import { getAgentRowOrThrow } from "@/lib/kernel/rows";
import { isConsentedPayee } from "../payees";
import { getProposalRowOrThrow } from "@/lib/kernel/rows";
import { isSelfPayment } from "@/lib/payments/payees";
import { errorSummary } from "@/lib/platform/redact";
import { sameAddress } from "@/lib/shared/address";
import { getChainClient } from "../chain/client";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import { getSettlementNetwork } from "../chain/network";
import { type RefusalCode, refusalCodeFor, refusalMessage } from "./outcomes";
import { transferWithAuthorizationTypes } from "../chain/usdc-abi";
import { type PaymentHeader, parsePaymentHeader, WrongX402Version } from "./payment-header";
import {
  reconcileSettlement,
  reconcileStalePending,
  settlementBudgetSeconds,
} from "../reconcile/settlement";
import {
  facilitatorUnavailable,
  MAX_TIMEOUT_SECONDS,
  paymentRequirementsFor,
  resourceServerOrUnavailable,
} from "./requirements";
import {
  claimSettlementSlot,
  endInFlight,
  findSettlementByAuthorization,
  liveSettlementForJob,
  notePendingSettlement,
  settleConflict,
  SlotTakenError,
} from "../ledger/settlements";

export { MAX_TIMEOUT_SECONDS };
/** Clock skew tolerated between the payer's clock and ours on `validBefore`. */
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

/**
 * The answer of the payment resource. Errors that are not payment refusals (400 malformed
 * header, 404, 409 state or pending, 503) are thrown as DomainErrors with their code.
 */
export type SettleOutcome =
  | {
      kind: "payment_required";
      code: RefusalCode;
      reason: string;
      paymentRequired: PaymentRequired;
      /** Present when a settlement was attempted and the chain says it moved nothing. */
      paymentResponse?: SettleResponse;
    }
  | { kind: "settled"; data: SettlementData; paymentResponse: SettleResponse };

/**
 * The x402 payment resource for one job and proposal (POST /api/jobs/:id/settle):
 * no header → the challenge; with a PAYMENT-SIGNATURE → verify, claim the job's slot, settle
 * on chain, record the hash. Price and payee come from the database every time. A settlement
 * is failed only when the chain shows it can never move money; any other unknown outcome
 * keeps the slot (409 settlement_pending) until the chain or the reconciler decides.
 */
export async function settleJobPayment(
  db: Db,
  input: { jobId: string; proposalId: string; paymentHeader: string | null; resourceUrl: string },
): Promise<SettleOutcome> {
  const job = await getJobRowOrThrow(db, input.jobId);
  const proposal = await getProposalRowOrThrow(db, job.id, input.proposalId);
  const network = getSettlementNetwork();

  // The header is read before anything else: a malformed one is 400 whatever the job's state.
  let header: PaymentHeader | undefined;
  let refusal: { code: RefusalCode; detail?: string; response?: SettleResponse } | undefined;
  if (input.paymentHeader) {
    try {
      header = parsePaymentHeader(input.paymentHeader);
    } catch (error) {
      // mutant: settle-a-malformed-payment-signature-is-400-invalid-payload
      if (!(error instanceof WrongX402Version)) throw error;
      // mutant end
      refusal = { code: "invalid_x402_version" };
    }
  }

  // The same authorization again: the recorded answer, not a second settlement.
  if (header) {
    const previous = await findSettlementByAuthorization(db, {
      network: network.network,
      asset: network.asset,
      payer: header.authorization.from,
      authorizationNonce: header.authorization.nonce,
    });
    if (previous) {
      const same =
        previous.jobId === job.id &&
        previous.proposalId === proposal.id &&
        storedSignature(previous) === header.signature.toLowerCase();
      const row =
        same && previous.status === "pending" ? await reconcileQuietly(db, previous) : previous;
      // mutant: settle-the-same-signature-again-is-an-idempotent-retry
      if (same && row.status === "succeeded") return settledOutcome(row);
      // mutant end
      if (same && row.status === "pending") throw pending(row);
      // mutant: settle-a-used-authorization-on-another-job
      refusal = same
        ? { code: "settlement_failed", response: failedResponse(row) }
        : { code: "authorization_already_used" };
      // mutant end
    }
  }

  const live = await reconcileStalePending(db, await liveSettlementForJob(db, job.id));
  // mutant: settle-a-paid-job-is-refused
  if (live?.status === "succeeded") {
    throw settleConflict(
      "already_paid",
      `this job is already paid (txHash ${live.txHash}); accept proposal ${live.proposalId} with that hash`,
    );
  }
  // mutant end
  const state = checkState("pay", job.status);
  // mutant: settle-a-job-that-is-not-open
  if (!state.allowed) throw settleConflict("job_not_open", state.reason);
  // mutant end
  if (proposal.status !== "pending") {
    throw settleConflict("proposal_not_pending", `the proposal is ${proposal.status}, not pending`);
  }
  if (live?.status === "pending") throw pending(live);
  await assertPayeeMayBePaid(db, job, proposal);

  // The payee the bid was made with, never the agent's current wallet (it may have changed).
  const payTo = getAddress(proposal.payeeAddress);
  const required = await paymentRequirementsFor({ payTo, amountAtomic: proposal.bidAtomic });
  const server = await resourceServerOrUnavailable();
  const challenge = async (
    code: RefusalCode,
    detail?: string,
    paymentResponse?: SettleResponse,
  ): Promise<SettleOutcome> => ({
    kind: "payment_required",
    code,
    reason: refusalMessage(code, detail),
    paymentRequired: await server.createPaymentRequiredResponse(
      [required],
      {
        url: input.resourceUrl,
        description: `${formatUsdc(atomicToUsdc(proposal.bidAtomic), "plain")} USDC for job "${job.title}" (proposal ${proposal.id})`,
        mimeType: "application/json",
      },
      code,
    ),
    ...(paymentResponse ? { paymentResponse } : {}),
  });

  if (refusal) return challenge(refusal.code, refusal.detail, refusal.response);
  if (!header) return challenge("payment_required");
  const mismatch = checkTerms(header, required, job.posterAddress);
  if (mismatch) return challenge(mismatch.code, mismatch.detail);

  if (!(await signatureMayBeValid(header, required))) {
    return challenge("invalid_exact_evm_payload_signature");
  }

  let verified;
  try {
    verified = await server.verifyPayment(header.payload, required);
  } catch (error) {
    console.error(`x402 verify failed: ${errorSummary(error)}`);
    throw facilitatorUnavailable();
  }
  if (!verified.isValid) {
    return challenge(refusalCodeFor(verified.invalidReason), verified.invalidReason);
  }

  let claimBlock: bigint;
  try {
    claimBlock = await getChainClient().getBlockNumber();
  } catch (error) {
    console.error(`Settle: the chain is not answering: ${errorSummary(error)}`);
    throw new DomainError(
      "unavailable",
      "the chain is not answering; nothing was charged, retry shortly",
      { "Retry-After": "5" },
      "chain_unavailable",
    );
  }

  let claim: Settlement;
  try {
    claim = await claimSettlementSlot(db, {
      jobId: job.id,
      proposalId: proposal.id,
      payer: header.authorization.from,
      payTo,
      amountAtomic: proposal.bidAtomic,
      network: network.network,
      asset: network.asset,
      authorizationNonce: header.authorization.nonce,
      validBefore: BigInt(header.authorization.validBefore),
      claimBlock,
      payload: header.payload as unknown as Prisma.InputJsonValue,
      inFlightUntil: new Date(Date.now() + settlementBudgetSeconds() * 1000),
    });
  } catch (error) {
    if (!(error instanceof SlotTakenError)) throw error;
    // Lost the race: to the same authorization sent twice at once, to another of this
    // authorization's uses, or to another payment for this job.
    const byAuthorization = await findSettlementByAuthorization(db, {
      network: network.network,
      asset: network.asset,
      payer: header.authorization.from,
      authorizationNonce: header.authorization.nonce,
    });
    if (byAuthorization && byAuthorization.jobId !== job.id) {
      return challenge("authorization_already_used");
    }
    const sameRequest =
      byAuthorization?.proposalId === proposal.id &&
      storedSignature(byAuthorization) === header.signature.toLowerCase();
    if (byAuthorization && !sameRequest) return challenge("authorization_already_used");
    if (byAuthorization?.status === "succeeded") return settledOutcome(byAuthorization);
    if (byAuthorization?.status === "failed") {
      return challenge("settlement_failed", undefined, failedResponse(byAuthorization));
    }
    const winner = byAuthorization ?? (await liveSettlementForJob(db, job.id));
    if (winner?.status === "succeeded") {
      throw settleConflict("already_paid", `this job is already paid (txHash ${winner.txHash})`);
    }
    throw pending(winner);
  }

  let settled: SettleResponse | undefined;
  let failure: unknown;
  try {
    settled = await server.settlePayment(header.payload, required);
  } catch (error) {
    failure = error;
  }
  // The facilitator's word decides nothing, "yes" or "no": the chain does. A "no" may be a
  // transfer sent and not yet mined, or an RPC failure after sending; a "yes" is recorded
  // only once the chain's receipt shows this authorization's transfer.
  const note = settled?.success
    ? undefined
    : settled
      ? `${settled.errorReason ?? "not settled"}`
      : errorSummary(failure);
  if (note) console.warn(`Settlement ${claim.id}: the facilitator did not confirm (${note})`);
  let row = await notePendingSettlement(db, claim.id, {
    error: note,
    txHash: settled?.transaction || undefined,
  });
  row = await reconcileQuietly(db, row);
  await endInFlight(db, claim.id);
  if (row.status === "succeeded") return settledOutcome(row);
  if (row.status === "failed") {
    return challenge(
      "settlement_failed",
      settled?.errorReason ? refusalMessage(refusalCodeFor(settled.errorReason)) : undefined,
      failedResponse(row),
    );
  }
  throw pending(row);
}

/**
 * Money goes to someone else, and to a wallet that agreed to be paid for this agent: a bid
 * made before either rule existed is refused here, before any challenge or signature.
 */
async function assertPayeeMayBePaid(
  db: Db,
  job: { posterAddress: string },
  proposal: { agentId: string; payeeAddress: string },
): Promise<void> {
  if (isSelfPayment(job.posterAddress, proposal.payeeAddress)) {
    throw settleConflict(
      "self_payment",
      "this proposal's payee is the job's poster: a poster cannot pay itself",
    );
  }
  const agent = await getAgentRowOrThrow(db, proposal.agentId);
  if (!(await isConsentedPayee(db, agent, proposal.payeeAddress))) {
    throw settleConflict(
      "payee_consent_pending",
      `the wallet this proposal pays (${getAddress(proposal.payeeAddress)}) has not agreed to be ` +
        "this agent's payee",
    );
  }
}

async function reconcileQuietly(db: Db, row: Settlement): Promise<Settlement> {
  try {
    return await reconcileSettlement(db, row);
  } catch (error) {
    console.error(`Settlement ${row.id}: the chain could not say: ${errorSummary(error)}`);
    return row;
  }
}

function pending(row: Settlement | null): DomainError {
  const hash = row?.txHash ? ` (transaction ${row.txHash})` : "";
  return new DomainError(
    "conflict",
    `a payment for this job is being settled${hash}; the chain has not confirmed it yet. ` +
      "Retry the same PAYMENT-SIGNATURE or read GET /api/v1/jobs/:id/payment shortly",
    { "Retry-After": "5" },
    "settlement_pending",
  );
}

function settledOutcome(row: Settlement): SettleOutcome {
  const txHash = row.txHash!;
  return {
    kind: "settled",
    data: {
      txHash,
      network: row.network,
      payer: getAddress(row.payer),
      payTo: getAddress(row.payTo),
      amountUsdc: atomicToUsdc(row.amountAtomic),
      jobId: row.jobId,
      proposalId: row.proposalId,
    },
    paymentResponse: {
      success: true,
      transaction: txHash,
      network: row.network as SettleResponse["network"],
      payer: getAddress(row.payer),
    },
  };
}

function failedResponse(row: Settlement): SettleResponse {
  return {
    success: false,
    errorReason: row.failureCode ?? "settlement_failed",
    transaction: row.txHash ?? "",
    network: row.network as SettleResponse["network"],
    payer: getAddress(row.payer),
  };
}

function storedSignature(row: Settlement): string | undefined {
  const signature = (row.payload as { payload?: { signature?: unknown } } | null)?.payload
    ?.signature;
  return typeof signature === "string" ? signature.toLowerCase() : undefined;
}

/** A refusal before asking the facilitator, when the payment is plainly not for this bid. */
function checkTerms(
  header: PaymentHeader,
  required: PaymentRequirements,
  poster: string,
): { code: RefusalCode; detail?: string } | undefined {
  const { authorization, payload } = header;
  const accepted = payload.accepted;
  if (accepted.scheme !== required.scheme) return { code: "invalid_scheme" };
  // mutant: settle-the-configured-network
  if (accepted.network !== required.network) {
    return { code: "invalid_network", detail: `this job is paid on ${required.network}` };
  }
  // mutant end
  // mutant: settle-the-configured-asset
  if (!sameAddress(accepted.asset, required.asset)) {
    return { code: "wrong_asset", detail: `the asset is ${required.asset}` };
  }
  // mutant end
  // mutant: settle-exactly-the-bid
  if (authorization.value !== required.amount || accepted.amount !== required.amount) {
    return {
      code: "invalid_exact_evm_payload_authorization_value_mismatch",
      detail: `this proposal costs exactly ${formatUsdc(atomicToUsdc(BigInt(required.amount)), "plain")} USDC`,
    };
  }
  // mutant end
  if (
    !sameAddress(authorization.to, required.payTo) ||
    !sameAddress(accepted.payTo, required.payTo)
  ) {
    return {
      code: "invalid_exact_evm_payload_recipient_mismatch",
      detail: `pay ${required.payTo}`,
    };
  }
  // mutant: settle-the-payer-is-the-poster
  if (!checkRole("pay", { caller: authorization.from, posterAddress: poster }).allowed) {
    return { code: "wrong_payer" };
  }
  // mutant end
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (BigInt(authorization.validBefore) <= now) {
    return { code: "invalid_exact_evm_payload_authorization_valid_before" };
  }
  if (BigInt(authorization.validAfter) > now) {
    return { code: "invalid_exact_evm_payload_authorization_valid_after" };
  }
  if (
    BigInt(authorization.validBefore) >
    now + BigInt(MAX_TIMEOUT_SECONDS + VALIDITY_SLACK_SECONDS)
  ) {
    return {
      code: "invalid_exact_evm_payload_authorization_valid_before",
      detail: `valid for too long: at most ${MAX_TIMEOUT_SECONDS} seconds`,
    };
  }
  return undefined;
}

/**
 * A 65-byte signature must recover to the payer over these terms: checked here, without the
 * chain, so that garbage never costs the facilitator's RPC calls. Longer signatures (contract
 * wallets: EIP-1271, EIP-6492) are left to the facilitator.
 */
async function signatureMayBeValid(header: PaymentHeader, required: PaymentRequirements) {
  if (header.signature.length !== 132) return true;
  const extra = required.extra as { name?: string; version?: string } | undefined;
  try {
    const signer = await recoverTypedDataAddress({
      domain: {
        name: extra?.name,
        version: extra?.version,
        chainId: Number(required.network.split(":")[1]),
        verifyingContract: getAddress(required.asset),
      },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: header.authorization.from,
        to: header.authorization.to,
        value: BigInt(header.authorization.value),
        validAfter: BigInt(header.authorization.validAfter),
        validBefore: BigInt(header.authorization.validBefore),
        nonce: header.authorization.nonce,
      },
      signature: header.signature,
    });
    return isAddressEqual(signer, header.authorization.from);
  } catch {
    return false;
  }
}
