import "server-only";
import { getAddress } from "viem";
import type { Db } from "@/lib/db";
import {
  challengeFor,
  pendingError,
  type Refusal,
  type Resolution,
  type SettleOutcome,
  settledOutcome,
} from "./answer";
import {
  MAX_TIMEOUT_SECONDS,
  paymentRequirementsFor,
  resourceServerOrUnavailable,
} from "./requirements";
import { claimSlot, currentBlock } from "./steps/claim";
import { type Parsed, parsePaymentSignature } from "./steps/parse";
import { assertPayable } from "./steps/preconditions";
import { recordAttempt } from "./steps/record";
import { replayAuthorization } from "./steps/replay";
import { submitSettlement } from "./steps/submit";
import { loadTarget } from "./steps/target";
import { checkSignature, checkTerms } from "./steps/terms";
import { verifyWithFacilitator } from "./steps/verify";
import {
  checkProtectedPayment,
  escrowClaimFields,
  protectedPaymentFor,
  submitAuthorize,
} from "../escrow/authorize";
import type { EscrowTerms } from "../escrow/escrow-terms";
import { transferWithAuthorizationTypes } from "../chain/usdc-abi";
import { facilitatorInProcess, knownReceipt } from "../facilitator/current";

/** `now`: the spec's flow, the agent paid at once. `escrow`: held until released (issue 25). */
export type PaymentMode = "now" | "escrow";

export type { SettleOutcome, SettlementData } from "./answer";
export { MAX_TIMEOUT_SECONDS };

/**
 * The x402 payment resource for one job and proposal (POST /api/jobs/:id/settle), as a
 * pipeline of named steps (./steps, each with its own test):
 *
 *   parse → replay → preconditions → terms → verify → claim → settle → record
 *
 * No header → the challenge; with a PAYMENT-SIGNATURE → verify, claim the job's slot, settle
 * on chain, record what the chain shows. Price and payee come from the database every time.
 * A settlement is failed only when the chain shows it can never move money; any other unknown
 * outcome keeps the slot (409 settlement_pending) until the chain or the reconciler decides.
 * Every decided step ends in a Resolution, answered the same way wherever it was reached.
 *
 * With mode `escrow` the challenge is x402's `auth-capture` scheme instead, and the terms,
 * verify and settle steps are the escrow operator's (lib/payments/escrow/authorize.ts): the
 * money goes into the Commerce Payments escrow, held for the payee; the ledger is the same.
 */
export async function settleJobPayment(
  db: Db,
  input: {
    jobId: string;
    proposalId: string;
    paymentHeader: string | null;
    resourceUrl: string;
    mode?: PaymentMode;
  },
): Promise<SettleOutcome> {
  // Parsed first, so that the target's one read also finds the authorization's ledger row; a
  // malformed header is answered (400) once the job and proposal are known to exist (404).
  let parsed: Parsed;
  let malformed: unknown;
  try {
    parsed = parsePaymentSignature(input.paymentHeader);
  } catch (error) {
    parsed = {};
    malformed = error;
  }
  const { header } = parsed;
  const target = await loadTarget(
    db,
    input,
    header && { payer: header.authorization.from, nonce: header.authorization.nonce },
  );
  if (malformed) throw malformed;
  const { job, proposal } = target;
  let refusal: Refusal | undefined = parsed.refusal;

  if (header) {
    const replayed = await replayAuthorization(db, target, header, target.seen);
    if (replayed?.kind === "settled") return settledOutcome(replayed.row);
    if (replayed?.kind === "pending") throw pendingError(replayed.row);
    // A refused replay is answered once the job is known to be payable at all.
    if (replayed) refusal = replayed;
  }

  await assertPayable(db, target, target.seen);

  // The payee the bid was made with, never the agent's current wallet (it may have changed).
  const payTo = getAddress(proposal.payeeAddress);
  const escrow =
    input.mode === "escrow"
      ? await protectedPaymentFor({
          payTo,
          amountAtomic: proposal.bidAtomic,
          etaDays: proposal.etaDays,
        })
      : undefined;
  const required =
    escrow?.required ?? (await paymentRequirementsFor({ payTo, amountAtomic: proposal.bidAtomic }));
  const server = await resourceServerOrUnavailable();
  const challenge = challengeFor(server, required, {
    jobTitle: job.title,
    proposalId: proposal.id,
    bidAtomic: proposal.bidAtomic,
    resourceUrl: input.resourceUrl,
  });
  const answer = async (resolution: Resolution): Promise<SettleOutcome> => {
    if (resolution.kind === "settled") return settledOutcome(resolution.row);
    if (resolution.kind === "pending") throw pendingError(resolution.row);
    return challenge(resolution);
  };

  if (refusal) return challenge(refusal);
  if (!header) return challenge({ code: "payment_required" });
  const claimBlock = await currentBlock();
  let terms: EscrowTerms | undefined;
  if (escrow) {
    const checked = await checkProtectedPayment(escrow, header, job.posterAddress);
    if ("refusal" in checked) return challenge(checked.refusal);
    terms = checked.terms;
  } else {
    refusal =
      checkTerms(header, required, job.posterAddress) ??
      // The facilitator in this process checks the signature itself (the token's own check of
      // it in the simulation of the transfer, or x402's recovery), and x402 again before it
      // broadcasts: ours is for a facilitator over HTTP, so that garbage never costs it a
      // request.
      (facilitatorInProcess()
        ? undefined
        : await checkSignature(header, required, transferWithAuthorizationTypes)) ??
      (await verifyWithFacilitator(server, header, required));
    if (refusal) return challenge(refusal);
  }

  const claimed = await claimSlot(
    db,
    target,
    header,
    payTo,
    claimBlock,
    terms && escrowClaimFields(terms),
  );
  if ("lost" in claimed) return answer(claimed.lost);
  const submitted = terms
    ? await submitAuthorize(db, claimed.claim, terms, header.signature)
    : await submitSettlement(server, header, required, knownReceipt);
  return answer(await recordAttempt(db, claimed.claim, submitted));
}
