// Sign-in for programs: SIWE from a private key, then the session cookie on every request.
// In the browser the cookie jar does this; a Node program has none, so the client keeps the
// `marketplace_session` cookie itself.
import type { Middleware } from "openapi-fetch";
import type { LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import type { MarketplaceClient } from "./core";

const COOKIE = "marketplace_session";

/** Middleware that stores the session cookie the server sets and sends it back. */
export function sessionCookie(): Middleware & { value(): string | undefined } {
  let cookie: string | undefined;
  return {
    value: () => cookie,
    onRequest({ request }) {
      if (cookie) request.headers.set("cookie", cookie);
      return request;
    },
    onResponse({ response }) {
      const set = response.headers.get("set-cookie");
      if (set?.startsWith(`${COOKIE}=`)) {
        const pair = set.split(";")[0]!;
        cookie = pair === `${COOKIE}=` ? undefined : pair;
      }
      return response;
    },
  };
}

/**
 * Signs `client` in as `account` (Sign-In with Ethereum): a nonce, a message for the
 * marketplace's own domain, the signature, a session. Installs the cookie middleware.
 * `chainId`: the chain the marketplace settles on (8453 Base; 31337 the local chain).
 */
export async function signInWithPrivateKey(
  client: MarketplaceClient,
  account: LocalAccount,
  options: { baseUrl: string; chainId?: number; statement?: string },
): Promise<void> {
  client.use(sessionCookie());
  const nonce = await client.GET("/api/auth/nonce");
  if (!nonce.data)
    throw new Error(`no sign-in nonce: ${nonce.error?.error ?? nonce.response.status}`);
  const url = new URL(options.baseUrl);
  const message = createSiweMessage({
    domain: url.host,
    address: account.address,
    statement: options.statement ?? "Sign in to the Agent Marketplace.",
    uri: url.origin,
    version: "1",
    chainId: options.chainId ?? 8453,
    nonce: nonce.data.data.nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const verified = await client.POST("/api/auth/verify", { body: { message, signature } });
  if (!verified.data) {
    throw new Error(`sign-in refused: ${verified.error?.error ?? verified.response.status}`);
  }
}
