"use client";

import { ConnectButton, useConnectModal } from "@rainbow-me/rainbowkit";
import { useEffect } from "react";
import { createPortal } from "react-dom";
import { shortAddress } from "@/lib/shared/format";
import type { PublicPaymentConfig } from "@/lib/shared/views";
import { OPEN_SIGN_IN_EVENT } from "@/components/wallet/events";
import { WalletProviders } from "@/components/wallet/providers";
import { DEV_BAR_ID } from "./dev-bar-id";
import { DevWalletBar } from "./dev-wallet-bar";

// Only used when the server could not describe its payment network (a configuration error).
const FALLBACK_CHAIN =
  process.env.NEXT_PUBLIC_SETTLEMENT_NETWORK === "base"
    ? { chainId: 8453, rpcUrl: "https://mainnet.base.org" }
    : { chainId: 31337, rpcUrl: process.env.NEXT_PUBLIC_CHAIN_RPC_URL || "http://127.0.0.1:8545" };

export default function HeaderWalletIsland({
  sessionAddress,
  payment,
}: {
  sessionAddress: string | null;
  payment: PublicPaymentConfig | null;
}) {
  const devBarTarget = typeof document === "undefined" ? null : document.getElementById(DEV_BAR_ID);
  return (
    <WalletProviders
      chain={payment ?? FALLBACK_CHAIN}
      sessionAddress={sessionAddress}
      withRainbowKit
      reconnectOnMount
    >
      <AccountButton sessionAddress={sessionAddress} />
      {payment?.faucetEnabled && devBarTarget
        ? createPortal(<DevWalletBar payment={payment} />, devBarTarget)
        : null}
    </WalletProviders>
  );
}

function AccountButton({ sessionAddress }: { sessionAddress: string | null }) {
  const { openConnectModal } = useConnectModal();

  // "Sign in" buttons elsewhere on the page ask for the modal through a window event.
  useEffect(() => {
    const open = () => openConnectModal?.();
    window.addEventListener(OPEN_SIGN_IN_EVENT, open);
    return () => window.removeEventListener(OPEN_SIGN_IN_EVENT, open);
  }, [openConnectModal]);

  return (
    <ConnectButton.Custom>
      {({ account, chain, authenticationStatus, mounted, openAccountModal, openChainModal }) => {
        if (!mounted || authenticationStatus === "loading") {
          return <span aria-hidden="true" className="inline-block h-10 w-32" />;
        }
        if (!account && sessionAddress) {
          // Signed in (cookie) but the wallet is not connected in this tab.
          return (
            <button
              type="button"
              className="btn btn-secondary font-mono max-sm:px-3"
              onClick={openConnectModal}
              title="Signed in. Connect your wallet to pay or switch accounts."
            >
              <span aria-hidden="true" className="size-2 rounded-full bg-slate-400" />
              <span className="sr-only">Signed in as </span>
              {shortAddress(sessionAddress)}
              <span className="sr-only">; connect wallet</span>
            </button>
          );
        }
        if (!account) {
          return (
            <button
              type="button"
              className="btn btn-primary max-sm:px-3"
              onClick={openConnectModal}
            >
              Connect<span className="max-sm:sr-only"> wallet</span>
            </button>
          );
        }
        if (authenticationStatus === "unauthenticated") {
          return (
            <button type="button" className="btn btn-primary" onClick={openConnectModal}>
              Sign in
            </button>
          );
        }
        if (chain?.unsupported) {
          return (
            <button type="button" className="btn btn-danger" onClick={openChainModal}>
              Wrong network
            </button>
          );
        }
        return (
          <button
            type="button"
            className="btn btn-secondary font-mono max-sm:px-3"
            onClick={openAccountModal}
            title={account.address}
            data-testid="account-button"
          >
            <span aria-hidden="true" className="size-2 rounded-full bg-emerald-500" />
            <span className="sr-only">Account </span>
            {account.displayName}
            <span className="sr-only">, signed in</span>
          </button>
        );
      }}
    </ConnectButton.Custom>
  );
}
