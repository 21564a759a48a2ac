// Step 2, replay, and the one recovery path: what the ledger already knows of this
// authorization. The same signature for the same bid again gets the recorded answer (settled,
// still pending, or failed), never a second settlement; the authorization used for anything
// else is refused. A claim that lost its race (./claim.ts) resolves through here as well.
import "server-only";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { errorSummary } from "@/lib/platform/redact";
import { findSettlementByAuthorization } from "../../ledger/settlements";
import { reconcileSettlement } from "../../reconcile/settlement";
import { failedResponse, refused, type Resolution } from "../answer";
import type { PaymentHeader } from "../payment-header";
import type { LedgerSnapshot, SettleTarget } from "./target";

/**
 * The ledger's resolution of this authorization, or undefined when it has never been used.
 * `seen`: the target's read of the ledger (./target.ts), trusted when it names this
 * authorization; a lost claim asks the ledger again.
 */
export async function replayAuthorization(
  db: Db,
  target: SettleTarget,
  header: PaymentHeader,
  seen?: LedgerSnapshot,
): Promise<Resolution | undefined> {
  const known = seen?.authorization;
  const sameKey =
    known !== undefined &&
    known.payer === header.authorization.from &&
    known.nonce === header.authorization.nonce.toLowerCase();
  if (sameKey && known.settlementId === null) return undefined;
  const previous = await findSettlementByAuthorization(db, {
    network: target.network.network,
    asset: target.network.asset,
    payer: header.authorization.from,
    authorizationNonce: header.authorization.nonce,
  });
  if (!previous) return undefined;
  const same =
    previous.jobId === target.job.id &&
    previous.proposalId === target.proposal.id &&
    storedSignature(previous) === header.signature.toLowerCase();
  // mutant: settle-a-used-authorization-on-another-job
  if (!same) return refused({ code: "authorization_already_used" });
  // mutant end
  const row = previous.status === "pending" ? await reconcileQuietly(db, previous) : previous;
  // mutant: settle-the-same-signature-again-is-an-idempotent-retry
  if (row.status === "succeeded") return { kind: "settled", row };
  // mutant end
  if (row.status === "pending") return { kind: "pending", row };
  return refused({ code: "settlement_failed", response: failedResponse(row) });
}

/** The chain's word on a pending row; the row as it was when the chain cannot say. */
export async function reconcileQuietly(db: Db, row: Settlement): Promise<Settlement> {
  try {
    return await reconcileSettlement(db, row);
  } catch (error) {
    console.error(`Settlement ${row.id}: the chain could not say: ${errorSummary(error)}`);
    return row;
  }
}

function storedSignature(row: Settlement): string | undefined {
  const signature = (row.payload as { payload?: { signature?: unknown } } | null)?.payload
    ?.signature;
  return typeof signature === "string" ? signature.toLowerCase() : undefined;
}
