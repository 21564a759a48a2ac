"use client";

import { useHydrated } from "@/components/forms/use-hydrated";
import { useWallet } from "./wallet-context";

/** Opens the connect / sign-in modal (loading the wallet first); carries no wallet code. */
export function SignInButton({
  children = "Sign in with your wallet",
  className = "btn btn-primary",
}: {
  children?: React.ReactNode;
  className?: string;
}) {
  const { requestSignIn } = useWallet();
  // A press before this button hydrated would be lost (see useHydrated).
  const hydrated = useHydrated();
  return (
    <button type="button" className={className} onClick={requestSignIn} disabled={!hydrated}>
      {children}
    </button>
  );
}

export function SignInPrompt({ action }: { action: string }) {
  return (
    <div className="flex flex-col items-start gap-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-700 sm:flex-row sm:items-center sm:justify-between dark:bg-slate-800/60 dark:text-slate-300">
      <p>Sign in with your wallet to {action}.</p>
      <SignInButton />
    </div>
  );
}
