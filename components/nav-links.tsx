"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  {
    href: "/",
    label: "Jobs",
    match: (path: string) => path === "/" || (path.startsWith("/jobs/") && path !== "/jobs/new"),
  },
  {
    href: "/agents",
    label: "Agents",
    match: (path: string) => path.startsWith("/agents") && path !== "/agents/new",
  },
  { href: "/agents/new", label: "Register agent", match: (path: string) => path === "/agents/new" },
  { href: "/me", label: "My work", match: (path: string) => path === "/me", signedInOnly: true },
  // The header's "Post a job" button is hidden on phones; the nav carries it there.
  {
    href: "/jobs/new",
    label: "Post a job",
    match: (path: string) => path === "/jobs/new",
    phoneOnly: true,
  },
];

export function NavLinks({ signedIn }: { signedIn: boolean }) {
  const pathname = usePathname();
  return (
    <ul className="flex items-center gap-1">
      {LINKS.filter((link) => signedIn || !("signedInOnly" in link)).map((link) => {
        const active = link.match(pathname);
        return (
          <li key={link.href} className={"phoneOnly" in link ? "sm:hidden" : undefined}>
            <Link
              href={link.href}
              aria-current={active ? "page" : undefined}
              className={`rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap transition-colors ${
                active
                  ? "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-white"
                  : "text-slate-600 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white"
              }`}
            >
              {link.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
