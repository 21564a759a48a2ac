"use client";

import { useHydrated } from "@/components/forms/use-hydrated";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { AccountButton, DevWalletBar } from "./lazy";
import { useWallet } from "./wallet-context";
import { WalletIsland } from "./wallet-island";
import { ConnectWalletButton, SignedInButton } from "./wallet-buttons";

/**
 * The header's wallet button. Until the wallet stack is wanted it is a plain button that asks
 * for it (Connect → the connect modal); then RainbowKit's account button takes its place.
 */
export function HeaderWallet({ sessionAddress }: { sessionAddress: string | null }) {
  const placeholder = <PlainWalletButton sessionAddress={sessionAddress} />;
  return (
    <WalletIsland fallback={placeholder}>
      <AccountButton sessionAddress={sessionAddress} placeholder={placeholder} />
    </WalletIsland>
  );
}

function PlainWalletButton({ sessionAddress }: { sessionAddress: string | null }) {
  const { requestSignIn } = useWallet();
  // A press before the header hydrated would be lost (see useHydrated).
  const disabled = !useHydrated();
  return sessionAddress ? (
    <SignedInButton address={sessionAddress} onClick={requestSignIn} disabled={disabled} />
  ) : (
    <ConnectWalletButton onClick={requestSignIn} disabled={disabled} />
  );
}

/** Local chain only: the test-USDC balance and faucet bar under the header, once connected. */
export function DevWalletBarIsland({ payment }: { payment: PublicPaymentConfig | null }) {
  if (!payment?.faucetEnabled) return null;
  return (
    <WalletIsland>
      <DevWalletBar payment={payment} />
    </WalletIsland>
  );
}
