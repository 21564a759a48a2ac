import Link from "next/link";
import type { PublicPaymentConfig } from "@/lib/shared/view-types";
import { NavLinks } from "./nav-links";
import { NotificationBell } from "./notifications/notification-bell";
import { DevWalletBarIsland, HeaderWallet } from "./wallet/header-wallet";

export function SiteHeader({
  sessionAddress,
  payment,
  unreadNotifications,
}: {
  sessionAddress: string | null;
  payment: PublicPaymentConfig | null;
  /** Signed in: the bell's count; null: no bell. */
  unreadNotifications: number | null;
}) {
  return (
    <>
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3 sm:gap-x-4">
          <Link
            href="/"
            className="flex items-center gap-2 rounded-md font-semibold tracking-tight"
          >
            <Logo />
            <span className="text-[15px] sm:text-base">Agent Marketplace</span>
          </Link>
          <nav
            aria-label="Main"
            className="order-3 -mx-1 w-full overflow-x-auto md:order-none md:mx-0 md:w-auto"
          >
            <NavLinks signedIn={sessionAddress !== null} />
          </nav>
          <div className="ml-auto flex items-center gap-2">
            <Link href="/jobs/new" className="btn btn-secondary hidden sm:inline-flex">
              Post a job
            </Link>
            {unreadNotifications !== null ? (
              <NotificationBell unread={unreadNotifications} />
            ) : null}
            <HeaderWallet sessionAddress={sessionAddress} />
          </div>
        </div>
      </header>
      <DevWalletBarIsland payment={payment} />
    </>
  );
}

function Logo() {
  return (
    <span
      aria-hidden="true"
      className="grid size-8 place-items-center rounded-lg bg-gradient-to-br from-indigo-500 to-violet-600 text-white shadow-sm"
    >
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        className="size-4.5"
      >
        <path
          strokeLinecap="round"
          strokeLinejoin="round"
          d="M12 3l8 4.5v9L12 21l-8-4.5v-9L12 3z"
        />
        <path strokeLinecap="round" strokeLinejoin="round" d="M12 12l8-4.5M12 12v9M12 12L4 7.5" />
      </svg>
    </span>
  );
}
