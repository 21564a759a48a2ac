// Every server runs one background reconciler: pending settlements are finished from the
// chain without waiting for anyone to come back. Several servers share the work safely
// (rows are leased with FOR UPDATE SKIP LOCKED).
import { getConfig } from "@/lib/platform/config";
import { getDb } from "@/lib/db";
import { reconcilePendingSettlements } from "./settlement";
import { reconcileEscrow } from "../escrow/reconcile";

export function startSettlementReconciler(): void {
  const state = globalThis as typeof globalThis & { __settlementReconciler?: NodeJS.Timeout };
  const seconds = getConfig().SETTLEMENT_RECONCILE_INTERVAL_SECONDS;
  if (state.__settlementReconciler || seconds === 0) return;
  let running = false;
  state.__settlementReconciler = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const db = await getDb();
      await reconcilePendingSettlements(db);
      // Held payments: their pending transactions, auto-releases and reclaims.
      await reconcileEscrow(db);
    } catch (error) {
      console.error("Settlement reconciler:", error);
    } finally {
      running = false;
    }
  }, seconds * 1000);
  state.__settlementReconciler.unref();
}
