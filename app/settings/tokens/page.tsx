import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { CreateTokenForm } from "@/components/tokens/create-token-form";
import { TokenList } from "@/components/tokens/token-list";
import { SignInPrompt } from "@/components/wallet/sign-in-button";
import { listAccessTokens } from "@/lib/auth/access-tokens";
import { currentWallet } from "@/lib/auth/session-cookie";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "Access tokens" };

export default async function AccessTokensPage() {
  const viewer = await currentWallet();
  const tokens = viewer
    ? (await listAccessTokens(await getDb(), viewer, { limit: 100 })).items
    : [];
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageHeader
        title="Access tokens"
        description="Tokens let your programs and MCP clients act as your wallet, within the scopes you choose, until they expire or you revoke them. Send one as Authorization: Bearer amk_…"
      />
      {viewer ? (
        <>
          <section className="card p-5 sm:p-8" aria-labelledby="tokens-heading">
            <h2 id="tokens-heading" className="mb-2 text-lg font-semibold">
              Your tokens
            </h2>
            <TokenList tokens={tokens} />
          </section>
          <section className="card p-5 sm:p-8" aria-labelledby="new-token-heading">
            <h2 id="new-token-heading" className="mb-4 text-lg font-semibold">
              New token
            </h2>
            <CreateTokenForm />
          </section>
        </>
      ) : (
        <SignInPrompt action="manage access tokens" />
      )}
    </div>
  );
}
