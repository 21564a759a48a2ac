"use client";

import { ConnectButton } from "@rainbow-me/rainbowkit";
import type { ReactNode } from "react";
import { ConnectWalletButton, SignedInButton } from "./wallet-buttons";

/** The header's account button, inside the wallet tree (an island of header-wallet.tsx). */
export default function AccountButton({
  sessionAddress,
  placeholder,
}: {
  sessionAddress: string | null;
  /** Shown until RainbowKit has mounted (the same button the header showed before). */
  placeholder: ReactNode;
}) {
  return (
    <ConnectButton.Custom>
      {({
        account,
        chain,
        authenticationStatus,
        mounted,
        openAccountModal,
        openChainModal,
        openConnectModal,
      }) => {
        if (!mounted) return placeholder;
        if (authenticationStatus === "loading") {
          return <span aria-hidden="true" className="inline-block h-10 w-32" />;
        }
        if (!account && sessionAddress) {
          return <SignedInButton address={sessionAddress} onClick={openConnectModal} />;
        }
        if (!account) return <ConnectWalletButton onClick={openConnectModal} />;
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
