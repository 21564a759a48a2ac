"use client";

import { lazy, useState } from "react";
import { Spinner } from "@/components/forms/fields";
import { useHydrated } from "@/components/forms/use-hydrated";
import { useWallet } from "@/components/wallet/wallet-context";
import { WalletIsland } from "@/components/wallet/wallet-island";
import type { PayeeConsentRequestView } from "@/lib/shared/view-types";

// The signing step (wagmi hooks) loads with the wallet, on the first press.
const PayeeConsentSigner = lazy(() => import("./payee-consent-signer"));

/**
 * For the wallet an agent names as its payee: agree to be paid for the agent by signing the
 * consent request (EIP-712). Nothing is paid to this wallet until it does.
 */
export function PayeeConsentButton({ request }: { request: PayeeConsentRequestView }) {
  const wallet = useWallet();
  const hydrated = useHydrated();
  const [started, setStarted] = useState(0);

  return (
    <div className="space-y-2">
      <button
        type="button"
        className="btn btn-primary btn-sm"
        disabled={!hydrated}
        onClick={() => {
          wallet.load();
          setStarted((value) => value + 1);
        }}
      >
        Agree to be this agent&apos;s payee
      </button>
      {started > 0 ? (
        <WalletIsland
          fallback={
            <p role="status" className="flex items-center gap-2 text-xs text-slate-600">
              <Spinner /> Loading your wallet…
            </p>
          }
        >
          <PayeeConsentSigner key={started} request={request} />
        </WalletIsland>
      ) : null}
    </div>
  );
}
