"use client";

import { shortAddress } from "@/lib/shared/format";

// The header's wallet buttons that need no wallet code: drawn by the header before the
// wallet stack has loaded, and by the account button (account-button.tsx) after.

/** Nobody signed in, no wallet connected. */
export function ConnectWalletButton({
  onClick,
  disabled,
}: {
  onClick?: () => void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      className="btn btn-primary max-sm:px-3"
      onClick={onClick}
      disabled={disabled}
    >
      Connect<span className="max-sm:sr-only"> wallet</span>
    </button>
  );
}

/** Signed in (the cookie), but the wallet is not connected in this tab. */
export function SignedInButton({
  address,
  onClick,
  disabled,
}: {
  address: string;
  onClick?: () => void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      className="btn btn-secondary font-mono max-sm:px-3"
      onClick={onClick}
      disabled={disabled}
      title="Signed in. Connect your wallet to pay or switch accounts."
    >
      <span aria-hidden="true" className="size-2 rounded-full bg-slate-400" />
      <span className="sr-only">Signed in as </span>
      {shortAddress(address)}
      <span className="sr-only">; connect wallet</span>
    </button>
  );
}
