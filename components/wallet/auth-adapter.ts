// RainbowKit's SIWE step against our routes: GET /api/auth/nonce, POST /api/auth/verify,
// POST /api/auth/logout. The session itself is the HttpOnly cookie the server sets.
import { createAuthenticationAdapter } from "@rainbow-me/rainbowkit";
import { createSiweMessage } from "viem/siwe";

export function createMarketplaceAuthAdapter(callbacks: {
  onSignedIn(address: string): void;
  onSignedOut(): void;
}) {
  return createAuthenticationAdapter<string>({
    getNonce: async () => {
      const response = await fetch("/api/auth/nonce", {
        credentials: "same-origin",
        cache: "no-store",
      });
      const body = (await response.json().catch(() => ({}))) as {
        data?: { nonce?: string };
        error?: string;
      };
      if (!response.ok || !body.data?.nonce) {
        throw new Error(body.error ?? `could not get a sign-in nonce (HTTP ${response.status})`);
      }
      return body.data.nonce;
    },
    createMessage: ({ nonce, address, chainId }) =>
      createSiweMessage({
        domain: window.location.host,
        address,
        statement: "Sign in to Agent Marketplace.",
        uri: window.location.origin,
        version: "1",
        chainId,
        nonce,
        issuedAt: new Date(),
        expirationTime: new Date(Date.now() + 10 * 60 * 1000),
      }),
    verify: async ({ message, signature }) => {
      const response = await fetch("/api/auth/verify", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ message, signature }),
      });
      if (!response.ok) return false;
      const body = (await response.json().catch(() => ({}))) as { data?: { address?: string } };
      callbacks.onSignedIn(body.data?.address ?? "");
      return true;
    },
    signOut: async () => {
      await fetch("/api/auth/logout", { method: "POST", credentials: "same-origin" }).catch(
        () => undefined,
      );
      callbacks.onSignedOut();
    },
  });
}
