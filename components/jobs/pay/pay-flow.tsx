"use client";

import { useAccount } from "wagmi";
import { sameAddress } from "@/lib/shared/address";
import { shortAddress } from "@/lib/shared/format";
import { atomicToUsdc, formatUsdc } from "@/lib/shared/money";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { Spinner } from "@/components/forms/fields";
import { useWallet } from "@/components/wallet/wallet-context";
import { useUsdcBalance } from "@/components/wallet/use-usdc-balance";
import { PayModeChoice } from "./pay-mode-choice";
import { PaySteps } from "./pay-steps";
import { PaySummary } from "./pay-summary";
import type { PayTarget } from "./types";
import { usePayRun } from "./use-pay-run";

export interface PayFlowProps {
  target: PayTarget;
  payment: PublicPaymentConfig;
  viewerAddress: string;
  onLockChange(locked: boolean): void;
  onChanged(): void;
  onClose(): void;
}

const NOTICE =
  "rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-200";

/**
 * The pay dialog's body, inside the wallet tree: the way to pay (where protected payments are
 * offered) → its challenge → summary → steps → done.
 */
export default function PayFlow(props: PayFlowProps) {
  const { target, payment, viewerAddress, onChanged, onClose } = props;
  const { address, status: accountStatus } = useAccount();
  const { requestSignIn } = useWallet();
  const balance = useUsdcBalance(payment, address);
  const { mode, chooseMode, challenge, run, locked, reloadChallenge, start, retry } =
    usePayRun(props);
  const reloadJob = () => {
    onChanged();
    onClose();
  };
  const choice = payment.protectedPayments ? (
    <PayModeChoice mode={mode} onChoose={chooseMode} name={`pay-mode-${target.proposalId}`} />
  ) : null;

  if (challenge.kind === "loading") {
    return (
      <div className="space-y-5 px-5 py-5">
        {choice}
        <p
          role="status"
          className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400"
        >
          <Spinner /> Asking the server for the payment request…
        </p>
      </div>
    );
  }
  if (challenge.kind === "error") {
    return (
      <div className="space-y-4 px-5 py-5">
        {choice}
        <div
          role="alert"
          className="rounded-lg bg-red-50 px-4 py-3 text-sm text-red-800 dark:bg-red-950/60 dark:text-red-200"
        >
          {challenge.message}
        </div>
        <div className="flex justify-end gap-2">
          <button
            type="button"
            className="btn btn-primary"
            onClick={challenge.conflict ? reloadJob : reloadChallenge}
          >
            {challenge.conflict ? "Reload the job" : "Retry"}
          </button>
        </div>
      </div>
    );
  }

  const { requirement } = challenge;
  const amount = BigInt(requirement.amount);
  const wrongAccount = address && !sameAddress(address, viewerAddress);
  const insufficient = balance.data !== undefined && balance.data < amount;
  const canStart = run.phase === "review" && accountStatus === "connected" && !wrongAccount;

  return (
    <div className="space-y-5 px-5 py-5">
      {choice}
      <PaySummary
        requirement={requirement}
        agentName={target.agentName}
        localChain={payment.faucetEnabled}
        balance={address ? { value: balance.data } : null}
        escrow={
          challenge.escrow && payment.escrow
            ? { terms: challenge.escrow, reviewSeconds: payment.escrow.reviewSeconds }
            : null
        }
      />

      {accountStatus === "connecting" || accountStatus === "reconnecting" ? (
        <p
          role="status"
          className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400"
        >
          <Spinner /> Connecting to your wallet…
        </p>
      ) : accountStatus === "disconnected" ? (
        <div className={NOTICE}>
          <p>Connect your wallet to sign the payment.</p>
          <button
            type="button"
            className="btn btn-sm btn-secondary mt-2"
            onClick={() => {
              onClose();
              requestSignIn();
            }}
          >
            Connect wallet
          </button>
        </div>
      ) : wrongAccount ? (
        <p role="alert" className={NOTICE}>
          Your wallet&apos;s active account ({shortAddress(address)}) is not the signed-in poster (
          {shortAddress(viewerAddress)}). Switch accounts in your wallet.
        </p>
      ) : insufficient && run.phase === "review" ? (
        <p className={NOTICE}>
          Your balance looks lower than the amount
          {payment.faucetEnabled ? " — use “Get test USDC” at the top of the page" : ""}. The
          payment will be refused without enough USDC.
        </p>
      ) : null}

      <PaySteps run={run} mode={challenge.mode} agentName={target.agentName} onRetry={retry} />

      <div className="flex flex-col-reverse gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:justify-end dark:border-slate-800">
        {run.phase === "done" ? (
          <button type="button" className="btn btn-primary" onClick={onClose}>
            Done
          </button>
        ) : run.phase === "failed" && run.conflict ? (
          <button type="button" className="btn btn-primary" onClick={reloadJob}>
            Reload the job
          </button>
        ) : (
          <>
            <button type="button" className="btn btn-secondary" onClick={onClose} disabled={locked}>
              Cancel
            </button>
            {run.phase === "review" ? (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!canStart}
                onClick={start}
              >
                Sign &amp; pay {formatUsdc(atomicToUsdc(amount))} USDC
              </button>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}
