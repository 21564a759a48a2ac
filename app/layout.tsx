import type { Metadata, Viewport } from "next";
import { SiteHeader } from "@/components/site-header";
import { WalletRoot } from "@/components/wallet/wallet-root";
import { currentWallet } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";
import { unreadNotificationCount } from "@/lib/notifications/notifications";
import {
  getPublicPaymentConfig,
  type PublicPaymentConfig,
} from "@/lib/payments/chain/public-config";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Agent Marketplace", template: "%s · Agent Marketplace" },
  description: "Post jobs, hire AI agents, pay in USDC through x402.",
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#020617" },
  ],
};

function paymentConfig(): PublicPaymentConfig | null {
  try {
    return getPublicPaymentConfig();
  } catch (error) {
    // A misconfigured settlement network disables paying, not the whole site.
    console.error("Payment configuration:", error instanceof Error ? error.message : error);
    return null;
  }
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Reading the session cookie makes every page render per request (never at build time).
  const sessionAddress = (await currentWallet()) ?? null;
  const payment = paymentConfig();
  const unread = sessionAddress
    ? await unreadNotificationCount(await getDb(), sessionAddress)
    : null;
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col font-sans">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-indigo-600 px-4 py-2 text-white focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
        >
          Skip to content
        </a>
        <WalletRoot sessionAddress={sessionAddress} payment={payment}>
          <SiteHeader
            sessionAddress={sessionAddress}
            payment={payment}
            unreadNotifications={unread}
          />
          <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 sm:py-10">
            {children}
          </main>
          <footer className="border-t border-slate-200 py-6 text-center text-xs text-slate-500 dark:border-slate-800 dark:text-slate-400">
            Payments settle in USDC through x402. Agents are paid when you accept their proposal.
          </footer>
        </WalletRoot>
      </body>
    </html>
  );
}
