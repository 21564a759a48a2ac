// Every server runs one background reconciler: pending settlements are finished from the
// chain without waiting for anyone to come back. Several servers share the work safely
// (rows are leased with FOR UPDATE SKIP LOCKED). While the database or the chain is down its
// passes back off and it logs one line; it goes on by itself when they are back, and the rows
// an outage interrupted are finished then (docs/operations.md, "When a dependency fails").
import { startBackgroundLoop } from "@/lib/platform/background-loop";
import { getConfig } from "@/lib/platform/config";
import { getDb } from "@/lib/db";
import { reconcilePendingSettlements } from "./settlement";
import { reconcileEscrow } from "../escrow/reconcile";

export function startSettlementReconciler(): void {
  const state = globalThis as typeof globalThis & { __settlementReconciler?: NodeJS.Timeout };
  const seconds = getConfig().SETTLEMENT_RECONCILE_INTERVAL_SECONDS;
  if (state.__settlementReconciler || seconds === 0) return;
  state.__settlementReconciler = startBackgroundLoop(
    "Settlement reconciler",
    seconds * 1000,
    async () => {
      const db = await getDb();
      await reconcilePendingSettlements(db);
      // Held payments: their pending transactions, auto-releases and reclaims.
      await reconcileEscrow(db);
    },
  );
}
