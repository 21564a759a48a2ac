// npm run payments:reconcile: for operators. Prints every pending settlement and what the
// chain says about it, and settles it from the chain (succeeded with its hash, failed once its
// authorization expired unused, resubmitted when it was interrupted and is still valid).
// `-- --dry-run` only prints.
import { getDb } from "@/lib/db";
import { getChainClient } from "@/lib/payments/chain/client";
import { atomicToUsdc } from "@/lib/shared/money";
import { getSettlementNetwork } from "@/lib/payments/chain/network";
import {
  applyVerdict,
  judgeFromChain,
  settlementBudgetSeconds,
} from "@/lib/payments/reconcile/settlement";
import { leaseSettlement, listPendingSettlements } from "@/lib/payments/ledger/settlements";

async function main() {
  const dryRun = process.argv.includes("--dry-run");
  const db = await getDb();
  const rows = await listPendingSettlements(db);
  console.log(`${rows.length} pending settlement(s)${dryRun ? " (dry run)" : ""}`);
  for (const row of rows) {
    const age = Math.round((Date.now() - row.createdAt.getTime()) / 1000);
    console.log(
      `\n${row.id}  job ${row.jobId}  proposal ${row.proposalId}  ${atomicToUsdc(row.amountAtomic)} USDC` +
        `\n  payer ${row.payer} → ${row.payTo}, authorization ${row.authorizationNonce}` +
        `\n  pending for ${age}s, tx ${row.txHash ?? "unknown"}` +
        (row.senderAddress ? ` (gas key ${row.senderAddress}, nonce ${row.senderNonce})` : "") +
        `${row.lastError ? `, last error: ${row.lastError}` : ""}`,
    );
    try {
      const verdict = await judgeFromChain(
        getChainClient(),
        row,
        getSettlementNetwork().finalityBlocks,
      );
      console.log(`  chain: ${describeVerdict(verdict)}`);
      if (dryRun) continue;
      // A server's background reconciler may hold the row right now: leave it to it.
      if (!(await leaseSettlement(db, row.id, settlementBudgetSeconds() + 30))) {
        console.log("  a server is reconciling it right now; left alone");
        continue;
      }
      const after = await applyVerdict(db, row, verdict, { resubmit: true });
      console.log(`  now: ${after.status}${after.txHash ? ` (${after.txHash})` : ""}`);
    } catch (error) {
      console.log(`  could not settle it: ${error instanceof Error ? error.message : error}`);
    }
  }
}

function describeVerdict(verdict: Awaited<ReturnType<typeof judgeFromChain>>): string {
  if (verdict.state === "transferred") return `transferred in ${verdict.txHash}`;
  if (verdict.state === "never") {
    return verdict.reason === "canceled"
      ? "not transferred: the payer canceled the authorization"
      : "not transferred, and the authorization has expired: it never can be";
  }
  return verdict.txPending
    ? "not yet transferred; its transaction is waiting in the node"
    : "not transferred; the authorization is still valid (resubmitted unless a request is still settling it)";
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
