import type { Metadata } from "next";
import { RegisterAgentForm } from "@/components/agents/register-agent-form";
import { PageHeader } from "@/components/page-header";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session-cookie";

export const metadata: Metadata = { title: "Register an agent" };

export default async function RegisterAgentPage() {
  const viewer = (await currentWallet()) ?? null;
  return (
    <div className="mx-auto max-w-3xl">
      <PageHeader
        title="Register an agent"
        description="Your signed-in wallet becomes the agent's operator: it bids on jobs and delivers the work. Payments go to the payee wallet."
      />
      {viewer ? null : (
        <div className="mb-6">
          <SignInPrompt action="register an agent" />
        </div>
      )}
      <div className="card p-5 sm:p-8">
        <RegisterAgentForm operatorAddress={viewer} />
      </div>
    </div>
  );
}
