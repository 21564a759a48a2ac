import { explorerTxUrl } from "@/lib/shared/explorer";
import type { PaymentView } from "@/lib/shared/view-types";

/** The job's live or latest payment, as the chain and our ledger know it (server component). */
export function PaymentStatus({ payment }: { payment: PaymentView }) {
  const hash = payment.txHash ? <TxHash network={payment.network} txHash={payment.txHash} /> : null;
  if (payment.status === "pending") {
    return (
      <section aria-labelledby="payment-title" className="card p-5" role="status">
        <h2 id="payment-title" className="font-semibold">
          Payment settling — the chain has not confirmed yet
        </h2>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          {payment.amountUsdc} USDC from the poster{" "}
          {payment.mode === "escrow"
            ? "into the escrow contract (a protected payment)"
            : "to the agent"}{" "}
          is on its way. No second payment can start until this one is settled; this page shows the
          outcome once the chain has decided.
        </p>
        {hash ? <p className="mt-2 text-sm">Transaction {hash}</p> : null}
      </section>
    );
  }
  if (payment.status === "failed") {
    return (
      <section aria-labelledby="payment-title" className="card p-5">
        <h2 id="payment-title" className="font-semibold">
          The last payment attempt did not go through
        </h2>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          Its authorization expired without being settled: no money moved. The poster can pay again.
        </p>
      </section>
    );
  }
  return null;
}

function TxHash({ network, txHash }: { network: string; txHash: string }) {
  const url = explorerTxUrl(network, txHash);
  const text = <span className="font-mono break-all">{txHash}</span>;
  return url ? (
    <a href={url} className="underline" target="_blank" rel="noreferrer">
      {text}
    </a>
  ) : (
    text
  );
}
