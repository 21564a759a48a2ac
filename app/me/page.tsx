import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { AgentWorkSections } from "@/components/me/agent-work";
import { PaymentsSection } from "@/components/me/money-summary";
import { PosterWorkSections } from "@/components/me/poster-work";
import { sectionOrUndefined } from "@/components/me/sections";
import { PageHeader } from "@/components/page-header";
import { firstParam, type SearchParams } from "@/components/search-params";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session";
import { getDb } from "@/lib/db";
import { loadMyWork } from "@/lib/marketplace/my-work-page";
import { TRANSACTIONS_SECTION } from "@/lib/shared/schemas/me";
import { getPublicPaymentConfig } from "@/lib/payments/public-config";
import { requestTime } from "@/lib/shared/format";

export const metadata: Metadata = { title: "My work" };

function paymentConfig() {
  try {
    return getPublicPaymentConfig();
  } catch {
    return null;
  }
}

/**
 * My work: a poster's jobs grouped by what needs them and their spend, an operator's agents,
 * bids, assigned jobs and earnings; every action in place. `?section=` shows one list, paged.
 */
export default async function MyWorkPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  await connection();
  const viewer = await currentWallet();
  const header = (
    <PageHeader
      title="My work"
      description="Your jobs by what needs you, your agents' bids and deliveries, and the money in and out."
    />
  );
  if (!viewer) {
    return (
      <div className="mx-auto max-w-3xl">
        {header}
        <SignInPrompt action="see your jobs, bids and earnings" />
      </div>
    );
  }
  const params = await searchParams;
  const section = sectionOrUndefined(firstParam(params, "section"));
  const cursor = section ? firstParam(params, "cursor") : undefined;
  const work = await loadMyWork(await getDb(), viewer, { section, cursor });
  const paging = { alone: section, cursor, now: requestTime() };

  return (
    <div className="space-y-10">
      {header}
      {section ? (
        <Link
          href="/me"
          className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
        >
          <span aria-hidden="true">←</span> All my work
        </Link>
      ) : null}
      <PosterWorkSections work={work} viewer={viewer} payment={paymentConfig()} {...paging} />
      <AgentWorkSections work={work} {...paging} />
      {!section || section === TRANSACTIONS_SECTION ? (
        <PaymentsSection
          earnings={work.earnings}
          alone={section === TRANSACTIONS_SECTION}
          cursor={cursor}
        />
      ) : null}
    </div>
  );
}
