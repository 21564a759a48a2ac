"use client";

import "@rainbow-me/rainbowkit/styles.css";
import {
  type AuthenticationStatus,
  darkTheme,
  lightTheme,
  RainbowKitAuthenticationProvider,
  RainbowKitProvider,
} from "@rainbow-me/rainbowkit";
import { useRouter } from "next/navigation";
import { type ReactNode, useMemo, useState } from "react";
import { useAccount } from "wagmi";
import { sameAddress } from "@/lib/shared/address";
import { createMarketplaceAuthAdapter } from "./auth-adapter";
import { APP_NAME } from "./config";

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
 * RainbowKit (modals, theme) with its SIWE step against our session routes. The server's
 * session cookie is the truth; `override` holds a sign-in or sign-out this page did until the
 * refreshed server render catches up.
 */
export function SignInProvider({
  sessionAddress,
  children,
}: {
  sessionAddress: string | null;
  children: ReactNode;
}) {
  const router = useRouter();
  const { address } = useAccount();
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
    session && (!address || sameAddress(address, session)) ? "authenticated" : "unauthenticated";

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
