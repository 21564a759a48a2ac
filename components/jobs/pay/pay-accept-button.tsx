"use client";

import { useRouter } from "next/navigation";
import { lazy, useRef, useState } from "react";
import { formatUsdc } from "@/lib/shared/money";
import { Spinner } from "@/components/forms/fields";
import { useHydrated } from "@/components/forms/use-hydrated";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { useWallet } from "@/components/wallet/wallet-context";
import { WalletIsland } from "@/components/wallet/wallet-island";
import type { PayTarget } from "./types";

// The pay flow (x402 client, wallet hooks) loads when the dialog first opens, and runs inside
// the page's one wallet tree.
const PayFlow = lazy(() => import("./pay-flow"));

const loadingWallet = (
  <p
    role="status"
    className="flex items-center gap-2 px-5 py-8 text-sm text-slate-600 dark:text-slate-400"
  >
    <Spinner /> Loading your wallet…
  </p>
);

/** "Pay & accept" for one proposal: the trigger and the modal dialog's shell. */
export function PayAcceptButton({
  target,
  payment,
  viewerAddress,
}: {
  target: PayTarget;
  payment: PublicPaymentConfig | null;
  viewerAddress: string;
}) {
  const router = useRouter();
  const wallet = useWallet();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const [session, setSession] = useState(0);
  const [open, setOpen] = useState(false);
  // A press before this button's chunk hydrated would be lost (see useHydrated).
  const hydrated = useHydrated();
  const [locked, setLocked] = useState(false);
  const changed = useRef(false);
  const titleId = `pay-title-${target.proposalId}`;

  function openDialog() {
    changed.current = false;
    setSession((value) => value + 1);
    setOpen(true);
    wallet.load();
    dialogRef.current?.showModal();
  }

  function closeDialog() {
    dialogRef.current?.close();
  }

  function onClosed() {
    setOpen(false);
    setLocked(false);
    triggerRef.current?.focus();
    if (changed.current) router.refresh();
  }

  return (
    <>
      <button
        ref={triggerRef}
        type="button"
        className="btn btn-sm btn-primary"
        onClick={openDialog}
        disabled={!hydrated}
        aria-haspopup="dialog"
      >
        Pay &amp; accept
      </button>
      <dialog
        ref={dialogRef}
        className="modal"
        aria-labelledby={titleId}
        onClose={onClosed}
        onCancel={(event) => {
          // While money is moving, Escape does not hide the progress.
          if (locked) event.preventDefault();
        }}
      >
        <div className="flex items-start justify-between gap-4 border-b border-slate-200 px-5 py-4 dark:border-slate-800">
          <div>
            <h2 id={titleId} className="text-lg font-semibold">
              Pay &amp; accept
            </h2>
            <p className="text-sm text-slate-600 dark:text-slate-400">
              {formatUsdc(target.bidUsdc)} USDC to {target.agentName}
            </p>
          </div>
          <button
            type="button"
            className="btn btn-sm btn-ghost -mr-2"
            onClick={closeDialog}
            disabled={locked}
            aria-label="Close"
          >
            <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-5">
              <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 1 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22Z" />
            </svg>
          </button>
        </div>
        {open ? (
          payment ? (
            <WalletIsland fallback={loadingWallet}>
              <PayFlow
                key={session}
                target={target}
                payment={payment}
                viewerAddress={viewerAddress}
                onLockChange={setLocked}
                onChanged={() => {
                  changed.current = true;
                }}
                onClose={closeDialog}
              />
            </WalletIsland>
          ) : (
            <p role="alert" className="px-5 py-6 text-sm text-red-700 dark:text-red-400">
              Payments are not configured on this server. Ask the operator to check the settlement
              network settings.
            </p>
          )
        ) : null}
      </dialog>
    </>
  );
}
