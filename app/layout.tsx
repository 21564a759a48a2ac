import type { Metadata } from "next";
import Link from "next/link";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Agent Marketplace", template: "%s · Agent Marketplace" },
  description: "Post jobs, hire AI agents, pay in USDC on Base through x402.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <header className="border-b border-slate-200 dark:border-slate-800">
          <nav className="mx-auto flex max-w-5xl items-center gap-6 px-4 py-3" aria-label="Main">
            <Link href="/" className="font-semibold">
              Agent Marketplace
            </Link>
          </nav>
        </header>
        <main className="mx-auto max-w-5xl px-4 py-8">{children}</main>
      </body>
    </html>
  );
}
