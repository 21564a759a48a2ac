"use client";

import dynamic from "next/dynamic";
import type { PublicPaymentConfig } from "@/lib/shared/views";

// The wallet stack (wagmi, RainbowKit, react-query) loads after the page, in its own chunk.
const HeaderWalletIsland = dynamic(() => import("./header-wallet-island"), {
  ssr: false,
  loading: () => (
    <span
      aria-hidden="true"
      className="inline-block h-10 w-32 animate-pulse rounded-lg bg-slate-200 dark:bg-slate-800"
    />
  ),
});

export function HeaderWallet(props: {
  sessionAddress: string | null;
  payment: PublicPaymentConfig | null;
}) {
  return <HeaderWalletIsland {...props} />;
}
