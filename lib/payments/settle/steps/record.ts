// Step 8, record: the claim notes what the facilitator said, the chain decides the outcome,
// and the claiming request lets go of the row (the reconciler may resubmit it from now on).
import "server-only";
import type { Db } from "@/lib/db";
import type { Settlement } from "@/lib/generated/prisma/client";
import { endInFlight, notePendingSettlement } from "../../ledger/settlements";
import { failedResponse, refused, type Resolution } from "../answer";
import { refusalCodeFor, refusalMessage } from "../outcomes";
import { reconcileQuietly } from "./replay";
import type { Submitted } from "./submit";

export async function recordAttempt(
  db: Db,
  claim: Settlement,
  submitted: Submitted,
): Promise<Resolution> {
  if (submitted.note) {
    console.warn(`Settlement ${claim.id}: the facilitator did not confirm (${submitted.note})`);
  }
  let row = await notePendingSettlement(db, claim.id, {
    error: submitted.note,
    txHash: submitted.response?.transaction || undefined,
  });
  row = await reconcileQuietly(db, row);
  await endInFlight(db, claim.id);
  if (row.status === "succeeded") return { kind: "settled", row };
  if (row.status === "pending") return { kind: "pending", row };
  const reason = submitted.response?.errorReason;
  return refused({
    code: "settlement_failed",
    detail: reason ? refusalMessage(refusalCodeFor(reason)) : undefined,
    response: failedResponse(row),
  });
}
