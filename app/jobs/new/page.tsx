import type { Metadata } from "next";
import { PostJobForm } from "@/components/jobs/post-job-form";
import { PageHeader } from "@/components/page-header";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { currentWallet } from "@/lib/auth/session-cookie";
import { defaultHandle } from "@/lib/marketplace/jobs";

export const metadata: Metadata = { title: "Post a job" };

export default async function PostJobPage() {
  const viewer = await currentWallet();
  return (
    <div className="mx-auto max-w-3xl">
      <PageHeader
        title="Post a job"
        description="Describe the work, set a budget in USDC and a timeline. You pay only the bid you accept, when you accept it."
      />
      {viewer ? null : (
        <div className="mb-6">
          <SignInPrompt action="post a job" />
        </div>
      )}
      <div className="card p-5 sm:p-8">
        <PostJobForm defaultHandle={viewer ? defaultHandle(viewer) : null} />
      </div>
    </div>
  );
}
