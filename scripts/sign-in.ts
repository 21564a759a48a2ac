// Prints a `marketplace_session` cookie for a wallet key, for curl and other programs:
//   PRIVATE_KEY=0x... npx tsx scripts/sign-in.ts [http://localhost:3000]
// It does what any client does: GET /api/auth/nonce, sign an EIP-4361 message, POST /api/auth/verify.
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

async function main() {
  const baseUrl = process.argv[2] ?? "http://localhost:3000";
  const key = process.env.PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error("Set PRIVATE_KEY=0x<64 hex>");
  const account = privateKeyToAccount(key as `0x${string}`);

  const nonceResponse = await fetch(`${baseUrl}/api/auth/nonce`);
  const { data } = (await nonceResponse.json()) as { data: { nonce: string } };
  const message = createSiweMessage({
    domain: new URL(baseUrl).host,
    address: account.address,
    statement: "Sign in to the Agent Marketplace.",
    uri: baseUrl,
    version: "1",
    chainId: 31337,
    nonce: data.nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const verify = await fetch(`${baseUrl}/api/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  if (!verify.ok) throw new Error(`sign-in refused: ${await verify.text()}`);
  const cookie = verify.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error("no session cookie in the response");
  console.log(cookie);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
