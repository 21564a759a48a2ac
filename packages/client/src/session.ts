// Sign-in for programs: SIWE from a private key or any viem account, then the session cookie on every request.
// In the browser the cookie jar does this; a Node program has none, so the client keeps the
// `marketplace_session` cookie itself.
import type { Middleware } from "openapi-fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import type { MarketplaceClient } from "./core";
import { unwrap } from "./errors";

const COOKIE = "marketplace_session";
const jars = new WeakSet<MarketplaceClient>();

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
      // One Set-Cookie header each (a joined `get` would hide ours behind another cookie).
      const set = response.headers.getSetCookie().find((line) => line.startsWith(`${COOKIE}=`));
      if (set) {
        const pair = set.split(";")[0]!;
        cookie = pair === `${COOKIE}=` ? undefined : pair;
      }
      return response;
    },
  };
}

/** Whatever signs the SIWE message: a viem account (local or JSON-RPC), or your own wallet. */
export interface SiweSigner {
  address: Address;
  signMessage(args: { message: string }): Promise<Hex>;
}

/**
 * Signs `client` in (Sign-In with Ethereum): a nonce, a message for the marketplace's own
 * domain, the signature, a session; installs the cookie middleware. `signer`: a private key,
 * or any viem account (`privateKeyToAccount`, `mnemonicToAccount`, or `{ address,
 * signMessage }` around a wallet client). `chainId` is informative (the session is the
 * wallet's on every chain); 8453 (Base) by default.
 */
export async function signIn(
  client: MarketplaceClient,
  signer: Hex | SiweSigner,
  options: { baseUrl: string; chainId?: number; statement?: string },
): Promise<{ address: Address }> {
  if (!signer) throw new TypeError("signIn needs a private key (0x…) or an account");
  const account = typeof signer === "string" ? privateKeyToAccount(signer) : signer;
  // One cookie jar per client, installed once whatever the number of sign-ins.
  if (!jars.has(client)) {
    jars.add(client);
    client.use(sessionCookie());
  }
  const nonce = await unwrap(client.GET("/api/auth/nonce"));
  const url = new URL(options.baseUrl);
  const message = createSiweMessage({
    domain: url.host,
    address: account.address,
    statement: options.statement ?? "Sign in to the Agent Marketplace.",
    uri: url.origin,
    version: "1",
    chainId: options.chainId ?? 8453,
    nonce: nonce.nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  await unwrap(client.POST("/api/auth/verify", { body: { message, signature } }));
  return { address: account.address };
}
