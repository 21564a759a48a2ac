// The x402 facilitator: verify a payment, settle it on chain, list what it supports. Either
// self-hosted (our own key pays the gas; in this process for `npm run dev`, or as its own
// service, `npm run facilitator`, for several app servers) or a remote one over HTTP
// (X402_FACILITATOR_URL: our service, or Coinbase's with CDP auth headers).
import { x402Facilitator } from "@x402/core/facilitator";
import {
  HTTPFacilitatorClient,
  type FacilitatorClient,
  type FacilitatorConfig,
} from "@x402/core/server";
import type { SupportedResponse } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import {
  concat,
  createPublicClient,
  encodeFunctionData,
  getAddress,
  http,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SettlementNetwork } from "../chain/network";
import { SerialSender } from "./sender";
import { timedRpcFetch } from "@/lib/platform/server-timing";

export type { FacilitatorClient };

/** A settlement transaction signed by the self-hosted facilitator, about to be broadcast. */
export interface SettlementBroadcast {
  authorizer: Address;
  authorizationNonce: Hex;
  txHash: Hex;
}

export interface SelfHostedFacilitator extends FacilitatorClient {
  /** The account that submits settlements (and pays their gas). */
  readonly signerAddress: Address;
}

export interface SelfHostedOptions {
  privateKey: Hex;
  /** How long settle waits for a receipt before answering `settlement_pending`. */
  confirmationTimeoutMs: number;
  /** Hears each settlement's hash before it is broadcast (awaited; its failure is logged). */
  onBroadcast?: (broadcast: SettlementBroadcast) => Promise<void> | void;
}

type ChainSettings = Pick<SettlementNetwork, "name" | "network" | "chain" | "rpcUrl">;

/** A facilitator that settles with our own key, its transactions sent one at a time. */
export function createSelfHostedFacilitator(
  settlement: ChainSettings,
  options: SelfHostedOptions,
): SelfHostedFacilitator {
  const account = privateKeyToAccount(options.privateKey);
  const client = createPublicClient({
    chain: settlement.chain,
    transport: http(settlement.rpcUrl, { retryCount: 0, timeout: 15_000, fetchFn: timedRpcFetch }),
    // ganache mines at once; Base makes a block every 2 s.
    pollingInterval: settlement.name === "local" ? 100 : 1_000,
  });
  const sender = new SerialSender({ account, client, chainId: settlement.chain.id });

  type ReadArgs = Parameters<typeof client.readContract>[0];
  type VerifyArgs = Parameters<typeof client.verifyTypedData>[0];
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) => client.readContract(args as ReadArgs),
      verifyTypedData: (args) => client.verifyTypedData(args as VerifyArgs),
      writeContract: ({ address, abi, functionName, args, dataSuffix }) => {
        const data = encodeFunctionData({ abi: abi as Abi, functionName, args });
        const broadcast = authorizationOf(functionName, args);
        return sender.send(
          { to: address, data: dataSuffix ? concat([data, dataSuffix]) : data },
          ({ hash }) =>
            broadcast ? options.onBroadcast?.({ ...broadcast, txHash: hash }) : undefined,
        );
      },
      sendTransaction: ({ to, data }) => sender.send({ to, data }),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
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

/** EIP-3009's transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, ...). */
function authorizationOf(
  functionName: string,
  args: readonly unknown[],
): Omit<SettlementBroadcast, "txHash"> | undefined {
  if (functionName !== "transferWithAuthorization") return undefined;
  const [from, , , , , nonce] = args;
  if (typeof from !== "string" || typeof nonce !== "string") return undefined;
  return { authorizer: getAddress(from), authorizationNonce: nonce as Hex };
}

export interface HttpFacilitatorOptions {
  url: string;
  /** Our own facilitator service's shared secret (sent as a bearer token). */
  secret?: string;
  /** Coinbase's hosted facilitator: CDP API keys. */
  cdpKeys?: { apiKeyId: string; apiKeySecret: string };
  timeoutMs?: number;
}

/** A facilitator reached over the x402 facilitator HTTP interface. */
export function createHttpFacilitator(options: HttpFacilitatorOptions): FacilitatorClient {
  const config: FacilitatorConfig = { url: options.url, timeoutMs: options.timeoutMs ?? 60_000 };
  const { secret, cdpKeys } = options;
  if (cdpKeys) {
    // Loaded on first use only: @coinbase/x402 pulls in the CDP SDK's JWT code.
    config.createAuthHeaders = async () => {
      const { createCdpAuthHeaders } = await import("@coinbase/x402");
      const create = createCdpAuthHeaders(cdpKeys.apiKeyId, cdpKeys.apiKeySecret);
      if (!create) throw new Error("@coinbase/x402 returned no auth header factory");
      return create();
    };
  } else if (secret) {
    const headers = { Authorization: `Bearer ${secret}` };
    config.createAuthHeaders = async () => ({
      verify: headers,
      settle: headers,
      supported: headers,
    });
  }
  return new HTTPFacilitatorClient(config);
}
