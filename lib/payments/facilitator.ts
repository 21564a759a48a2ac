// The x402 facilitator the resource server talks to: verify a payment, settle it on chain,
// list what it supports. Either in-process (our own key pays the gas: the local chain, or
// Base with FACILITATOR_PRIVATE_KEY) or a remote one over HTTP (X402_FACILITATOR_URL or
// Coinbase's, with CDP auth headers).
import { x402Facilitator } from "@x402/core/facilitator";
import {
  HTTPFacilitatorClient,
  type FacilitatorClient,
  type FacilitatorConfig,
} from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { createWalletClient, http, publicActions, type Address } from "viem";
import { createNonceManager, privateKeyToAccount } from "viem/accounts";
import { jsonRpc } from "viem/nonce";
import { getConfig } from "@/lib/config";
import { getSettlementNetwork, type SettlementNetwork } from "./network";

export type { FacilitatorClient };

export interface SelfHostedFacilitator extends FacilitatorClient {
  /** The account that submits settlements (and pays their gas). */
  readonly signerAddress: Address;
}

export interface CdpKeys {
  apiKeyId?: string;
  apiKeySecret?: string;
}

/** A new facilitator client for `settlement` (tests use this with their own chain). */
export function createFacilitator(
  settlement: Pick<SettlementNetwork, "name" | "network" | "chain" | "rpcUrl" | "facilitator">,
  cdpKeys: CdpKeys = {},
): FacilitatorClient | SelfHostedFacilitator {
  const config = settlement.facilitator;
  if (config.kind === "http") {
    const options: FacilitatorConfig = { url: config.url };
    if (config.cdpAuth) {
      const { apiKeyId, apiKeySecret } = cdpKeys;
      if (!apiKeyId || !apiKeySecret)
        throw new Error("CDP auth needs CDP_API_KEY_ID and CDP_API_KEY_SECRET");
      // Loaded on first use only: @coinbase/x402 pulls in the CDP SDK's JWT code.
      options.createAuthHeaders = async () => {
        const { createCdpAuthHeaders } = await import("@coinbase/x402");
        const create = createCdpAuthHeaders(apiKeyId, apiKeySecret);
        if (!create) throw new Error("@coinbase/x402 returned no auth header factory");
        return create();
      };
    }
    return new HTTPFacilitatorClient(options);
  }

  // A nonce manager of our own (not viem's process-wide default) so that concurrent settles
  // get consecutive nonces, and a fresh chain (tests) never sees nonces cached for another.
  const account = privateKeyToAccount(config.privateKey, {
    nonceManager: createNonceManager({ source: jsonRpc() }),
  });
  const client = createWalletClient({
    account,
    chain: settlement.chain,
    transport: http(settlement.rpcUrl),
    pollingInterval: settlement.name === "local" ? 100 : 1_000,
  }).extend(publicActions);

  // The facilitator's signer interface is viem's, loosely typed: adapt argument types only.
  type ReadArgs = Parameters<typeof client.readContract>[0];
  type VerifyArgs = Parameters<typeof client.verifyTypedData>[0];
  type WriteArgs = Parameters<typeof client.writeContract>[0];
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract(args as ReadArgs),
      verifyTypedData: (args) => client.verifyTypedData(args as VerifyArgs),
      writeContract: (args) => client.writeContract(args as WriteArgs),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    // Locally a transaction is mined at once or never (e.g. after a chain reset): fail fast.
    { confirmationTimeoutMs: settlement.name === "local" ? 20_000 : 60_000 },
  );

  const facilitator = new x402Facilitator().register(
    settlement.network,
    new ExactEvmScheme(signer),
  );
  return {
    signerAddress: account.address,
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** The configured facilitator, created once per process. */
export function getFacilitator(): FacilitatorClient {
  const cache = globalThis as typeof globalThis & { __x402Facilitator?: FacilitatorClient };
  if (!cache.__x402Facilitator) {
    const config = getConfig();
    cache.__x402Facilitator = createFacilitator(getSettlementNetwork(), {
      apiKeyId: config.CDP_API_KEY_ID,
      apiKeySecret: config.CDP_API_KEY_SECRET,
    });
  }
  return cache.__x402Facilitator;
}
