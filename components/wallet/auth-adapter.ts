// RainbowKit's SIWE step against our routes: GET /api/auth/nonce, POST /api/auth/verify,
// POST /api/auth/logout. The session itself is the HttpOnly cookie the server sets.
import { createAuthenticationAdapter } from "@rainbow-me/rainbowkit";
import { createSiweMessage } from "viem/siwe";
import { api, callApi } from "@/components/api-client";

export function createMarketplaceAuthAdapter(callbacks: {
  onSignedIn(address: string): void;
  onSignedOut(): void;
}) {
  return createAuthenticationAdapter<string>({
    getNonce: async () => {
      const result = await callApi(api.GET("/api/auth/nonce"));
      if (result.ok && result.data.nonce) return result.data.nonce;
      const reason = result.ok
        ? undefined
        : (result.serverError ?? (result.status === 0 ? result.error : undefined));
      throw new Error(reason ?? `could not get a sign-in nonce (HTTP ${result.status})`);
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
      const result = await callApi(api.POST("/api/auth/verify", { body: { message, signature } }));
      if (!result.ok) return false;
      callbacks.onSignedIn(result.data.address ?? "");
      return true;
    },
    signOut: async () => {
      await callApi(api.POST("/api/auth/logout"));
      callbacks.onSignedOut();
    },
  });
}
