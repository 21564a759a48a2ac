"use client";

import { createContext, useContext } from "react";
import type { IslandRegistry } from "./island-registry";

/**
 * What any component may ask of the page's wallet, without importing wallet code: the wallet
 * stack (wagmi, RainbowKit, react-query, viem) loads only when asked, once per page.
 */
export interface WalletControls {
  /** Load the wallet stack and mount the wallet tree (no-op once loaded). */
  load(): void;
  /** Open RainbowKit's connect / sign-in modal, loading the wallet stack first if needed. */
  requestSignIn(): void;
  /** The wallet tree is mounted: islands render inside it from now on. */
  ready: boolean;
  /** Where islands register (see wallet-island.tsx). */
  islands: IslandRegistry;
}

export const WalletContext = createContext<WalletControls | null>(null);

export function useWallet(): WalletControls {
  const controls = useContext(WalletContext);
  if (!controls) throw new Error("useWallet() needs <WalletRoot> above it (app/layout.tsx).");
  return controls;
}
