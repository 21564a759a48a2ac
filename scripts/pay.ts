// Pays a proposal through x402 with the typed client (@agent-marketplace/client), as any programmatic payer:
//   PRIVATE_KEY=0x... npx tsx scripts/pay.ts <jobId> <proposalId> [http://localhost:3000]
// Prints the settlement (its txHash is what POST /api/v1/jobs/:id/accept wants).
import { privateKeyToAccount } from "viem/accounts";
import { createMarketplaceClient, payProposal, paymentTerms } from "@agent-marketplace/client";

async function main() {
  const [jobId, proposalId, baseUrl = "http://localhost:3000"] = process.argv.slice(2);
  const key = process.env.PRIVATE_KEY;
  if (!jobId || !proposalId)
    throw new Error("usage: scripts/pay.ts <jobId> <proposalId> [baseUrl]");
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error("Set PRIVATE_KEY=0x<64 hex>");
  const account = privateKeyToAccount(key as `0x${string}`);
  const client = createMarketplaceClient({ baseUrl });

  // Read the challenge first to show what will be signed and to allow exactly that.
  const terms = await paymentTerms(client, { jobId, proposalId });
  console.log(`Paying ${terms.amountUsdc} USDC to ${terms.payTo} on ${terms.network}`);
  const settlement = await payProposal(
    client,
    account,
    { jobId, proposalId },
    // MAX_USDC: your ceiling; without it, the amount just printed.
    { maxUsdc: process.env.MAX_USDC ? Number(process.env.MAX_USDC) : terms.amountUsdc },
  );
  console.log(JSON.stringify(settlement, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
