"use client";

import "@rainbow-me/rainbowkit/styles.css";
import {
  type AuthenticationStatus,
  darkTheme,
  lightTheme,
  RainbowKitAuthenticationProvider,
  RainbowKitProvider,
} from "@rainbow-me/rainbowkit";
import { QueryClientProvider } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type ReactNode, useMemo, useState } from "react";
import { useAccount, WagmiContext, WagmiProvider } from "wagmi";
import { createMarketplaceAuthAdapter } from "./auth-adapter";
import { APP_NAME, getWagmiConfig, type WalletChainSettings } from "./config";
import { walletQueryClient } from "./query-client";

function withReadableText<T extends ReturnType<typeof lightTheme>>(theme: T, secondary: string): T {
  // RainbowKit's default secondary grey fails WCAG AA contrast (3.3:1) on its modal background.
  return { ...theme, colors: { ...theme.colors, modalTextSecondary: secondary } };
}

const theme = {
  lightMode: withReadableText(
    lightTheme({ accentColor: "#4f46e5", borderRadius: "medium", fontStack: "system" }),
    "#4b5563",
  ),
  darkMode: withReadableText(
    darkTheme({ accentColor: "#6366f1", borderRadius: "medium", fontStack: "system" }),
    "#a1a1aa",
  ),
};

/**
 * wagmi + react-query, and (for the island that signs in) RainbowKit with its SIWE step.
 * Loaded only inside `next/dynamic({ ssr: false })` islands, never in the first-load bundle.
 */
export function WalletProviders({
  chain,
  sessionAddress,
  children,
  withRainbowKit = false,
  reconnectOnMount = false,
}: {
  chain: WalletChainSettings;
  /** The signed-in wallet according to the server (the cookie), or null. */
  sessionAddress: string | null;
  children: ReactNode;
  withRainbowKit?: boolean;
  /**
   * The one island per page (the header's) that hydrates the shared wagmi store and restores
   * the previous connection. Other islands only read the store: a second WagmiProvider would
   * hydrate again and, without reconnecting, clear the connections the first one restored.
   */
  reconnectOnMount?: boolean;
}) {
  const config = getWagmiConfig(chain);
  const inner = (
    <QueryClientProvider client={walletQueryClient}>
      {withRainbowKit ? (
        <SignInProvider sessionAddress={sessionAddress}>{children}</SignInProvider>
      ) : (
        children
      )}
    </QueryClientProvider>
  );
  return reconnectOnMount ? (
    <WagmiProvider config={config} reconnectOnMount>
      {inner}
    </WagmiProvider>
  ) : (
    <WagmiContext.Provider value={config}>{inner}</WagmiContext.Provider>
  );
}

function SignInProvider({
  sessionAddress,
  children,
}: {
  sessionAddress: string | null;
  children: ReactNode;
}) {
  const router = useRouter();
  const { address } = useAccount();
  // The server's session is the truth; `override` holds a sign-in or sign-out this page did
  // until the refreshed server render catches up.
  const [override, setOverride] = useState<{ session: string | null; basedOn: string | null }>();
  const session =
    override && override.basedOn === sessionAddress ? override.session : sessionAddress;

  const adapter = useMemo(
    () =>
      createMarketplaceAuthAdapter({
        onSignedIn: (signedIn) => {
          setOverride({ session: signedIn, basedOn: sessionAddress });
          router.refresh();
        },
        onSignedOut: () => {
          setOverride({ session: null, basedOn: sessionAddress });
          router.refresh();
        },
      }),
    [router, sessionAddress],
  );

  // Signed in, but the wallet now shows another account: ask to sign in with that one.
  const status: AuthenticationStatus =
    session && (!address || address.toLowerCase() === session.toLowerCase())
      ? "authenticated"
      : "unauthenticated";

  return (
    <RainbowKitAuthenticationProvider adapter={adapter} status={status}>
      <RainbowKitProvider
        theme={theme}
        modalSize="compact"
        showRecentTransactions={false}
        appInfo={{ appName: APP_NAME }}
      >
        {children}
      </RainbowKitProvider>
    </RainbowKitAuthenticationProvider>
  );
}
