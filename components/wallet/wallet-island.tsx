"use client";

import { type ReactNode, useId, useLayoutEffect, useState } from "react";
import { useWallet } from "./wallet-context";

/**
 * Wallet UI at this place in the page, rendered by the page's one wallet tree, so it may use
 * wagmi and RainbowKit hooks. `children` is a lazy component from a wallet-side module (its
 * code loads with the wallet); `fallback` shows until then, and in the server's HTML.
 */
export function WalletIsland({
  children,
  fallback = null,
}: {
  children: ReactNode;
  fallback?: ReactNode;
}) {
  const { islands, ready } = useWallet();
  const id = useId();
  const [host, setHost] = useState<HTMLDivElement | null>(null);

  useLayoutEffect(() => {
    if (host) islands.set({ id, host, content: children, fallback });
  }, [islands, id, host, children, fallback]);
  useLayoutEffect(() => () => islands.remove(id), [islands, id]);

  return (
    <>
      {ready ? null : fallback}
      <div ref={setHost} className="contents" />
    </>
  );
}
