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
import { currentWallet } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";
import { loadMyWork, type MyWork } from "@/lib/views/my-work-page";
import { MY_JOB_GROUPS, type MyJobGroup, TRANSACTIONS_SECTION } from "@/lib/shared/schemas/me";
import { getPublicPaymentConfig } from "@/lib/payments/chain/public-config";
import { requestTime } from "@/lib/shared/format";

export const metadata: Metadata = { title: "My work" };

function paymentConfig() {
  try {
    return getPublicPaymentConfig();
  } catch {
    return null;
  }
}

/** An operator who has never posted a job sees their agents before "Post a job". */
function operatorFirst(work: MyWork): boolean {
  const posted = Object.entries(work.jobs).some(
    ([group, page]) =>
      MY_JOB_GROUPS[group as MyJobGroup].side === "poster" && page.items.length > 0,
  );
  const { spent, escrow } = work.earnings.view;
  return work.agents.length > 0 && !posted && spent.payments === 0 && escrow.spent.payments === 0;
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
      {operatorFirst(work) ? (
        <>
          <AgentWorkSections work={work} {...paging} />
          <PosterWorkSections work={work} viewer={viewer} payment={paymentConfig()} {...paging} />
        </>
      ) : (
        <>
          <PosterWorkSections work={work} viewer={viewer} payment={paymentConfig()} {...paging} />
          <AgentWorkSections work={work} {...paging} />
        </>
      )}
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
