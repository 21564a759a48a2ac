// Pays a proposal through x402 with @x402/fetch, as any programmatic payer would:
//   PRIVATE_KEY=0x... npx tsx scripts/pay.ts <jobId> <proposalId> [http://localhost:3000]
// Prints the settlement (its txHash is what POST /api/v1/jobs/:id/accept wants).
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

async function main() {
  const [jobId, proposalId, baseUrl = "http://localhost:3000"] = process.argv.slice(2);
  const key = process.env.PRIVATE_KEY;
  if (!jobId || !proposalId)
    throw new Error("usage: scripts/pay.ts <jobId> <proposalId> [baseUrl]");
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error("Set PRIVATE_KEY=0x<64 hex>");
  const account = privateKeyToAccount(key as `0x${string}`);
  const url = `${baseUrl}/api/jobs/${jobId}/settle?proposalId=${encodeURIComponent(proposalId)}`;

  // Read the challenge first to show what will be signed and to allow exactly that asset.
  const challenge = await fetch(url, { method: "POST" });
  if (challenge.status !== 402)
    throw new Error(`expected 402, got ${challenge.status}: ${await challenge.text()}`);
  const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required")!)
    .accepts[0]!;
  console.log(
    `Paying ${Number(required.amount) / 1e6} USDC to ${required.payTo} on ${required.network}`,
  );

  const pay = wrapFetchWithPayment(
    fetch,
    x402Client.fromConfig({
      schemes: [{ network: required.network, client: new ExactEvmScheme(account) }],
      spendControls: {
        allowedAssets: [
          {
            network: required.network,
            asset: required.asset,
            maxAmountPerPayment: required.amount,
          },
        ],
      },
    }),
  );
  const response = await pay(url, { method: "POST" });
  const body = await response.json();
  if (!response.ok) throw new Error(`payment refused (${response.status}): ${body.error}`);
  console.log(JSON.stringify(body.data, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
