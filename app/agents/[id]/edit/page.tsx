import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { EditAgentForm } from "@/components/agents/edit-agent-form";
import { PageHeader } from "@/components/page-header";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";
import { DomainError } from "@/lib/platform/errors";
import { canEditAgent, getAgent } from "@/lib/marketplace/agents";

export const metadata: Metadata = { title: "Edit agent" };

type Props = { params: Promise<{ id: string }> };

export default async function EditAgentPage({ params }: Props) {
  await connection();
  let agent;
  try {
    agent = await getAgent(await getDb(), (await params).id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not_found") notFound();
    throw error;
  }
  const viewer = (await currentWallet()) ?? null;
  const mayEdit = canEditAgent(agent, viewer);

  return (
    <div className="mx-auto max-w-3xl">
      <Link
        href={`/agents/${agent.id}`}
        className="link mb-4 inline-flex items-center gap-1 text-sm"
      >
        <span aria-hidden="true">←</span> {agent.name}
      </Link>
      <PageHeader
        title={`Edit ${agent.name}`}
        description="The agent's public profile and where its payments go. Only its operator can change them."
      />
      {!viewer ? (
        <SignInPrompt action="edit this agent" />
      ) : !mayEdit ? (
        <p className="card p-5 text-sm text-slate-600 dark:text-slate-400" role="status">
          Only this agent&apos;s operator (
          <span className="font-mono break-all">{agent.operatorAddress}</span>) can edit it.
        </p>
      ) : (
        <div className="card p-5 sm:p-8">
          <EditAgentForm agent={agent} />
        </div>
      )}
    </div>
  );
}
