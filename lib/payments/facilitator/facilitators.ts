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
  type TransactionReceipt,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SettlementNetwork } from "../chain/network";
import { pendingSettlementsInNode } from "./pending-settlements";
import { type BalanceWatch, SenderPool } from "./sender-pool";
import { verifiedByTheChain } from "./verify-by-chain";
import { timedRpcFetch } from "@/lib/platform/server-timing";
import { setBounded } from "@/lib/shared/bounded-map";
import { RecentMap } from "@/lib/shared/recent-map";

export type { FacilitatorClient };

/** A settlement transaction signed by the self-hosted facilitator, about to be broadcast. */
export interface SettlementBroadcast {
  authorizer: Address;
  authorizationNonce: Hex;
  txHash: Hex;
  /** The gas key that sends it, and that key's nonce for it. */
  sender: Address;
  senderNonce: number;
}

export interface SelfHostedFacilitator extends FacilitatorClient {
  /** The accounts that submit settlements (and pay their gas), one ordered queue each. */
  readonly signerAddresses: Address[];
  /** The receipt of a settlement this facilitator waited for lately (no chain call). */
  receiptOf(hash: Hex): TransactionReceipt | undefined;
  /** Stops the periodic balance check. */
  stop(): void;
}

export interface SelfHostedOptions {
  /** The gas keys (FACILITATOR_PRIVATE_KEYS), each with its own ordered queue. */
  privateKeys: Hex[];
  /** Each key's ETH balance read periodically, a warning below the minimum. */
  balance?: BalanceWatch;
  /** How long settle waits for a receipt before answering `settlement_pending`. */
  confirmationTimeoutMs: number;
  /** Hears each settlement's hash before it is broadcast (awaited; its failure is logged). */
  onBroadcast?: (broadcast: SettlementBroadcast) => Promise<void> | void;
}

type ChainSettings = Pick<SettlementNetwork, "name" | "network" | "chain" | "rpcUrl">;

/** A facilitator that settles with our own keys, each key's transactions in nonce order. */
export function createSelfHostedFacilitator(
  settlement: ChainSettings,
  options: SelfHostedOptions,
): SelfHostedFacilitator {
  const client = createPublicClient({
    chain: settlement.chain,
    transport: http(settlement.rpcUrl, { retryCount: 0, timeout: 15_000, fetchFn: timedRpcFetch }),
    // ganache mines at once; Base makes a block every 2 s.
    pollingInterval: settlement.name === "local" ? 100 : 1_000,
  });
  const senders = new SenderPool({
    accounts: options.privateKeys.map((key) => privateKeyToAccount(key)),
    client,
    chainId: settlement.chain.id,
    pollingIntervalMs: client.pollingInterval,
    balance: options.balance,
  });
  senders.watchBalances();

  // x402 reads the token's code and the payer's on every verify and again on every settle (the
  // payer's twice each time: once to classify its signature, once to check it). A contract's
  // code does not change once deployed (SELFDESTRUCT no longer removes it), so code found is
  // kept; an address without code (an EOA, a wallet not yet deployed) or with an EIP-7702
  // delegation (0xef0100…), which its owner may change, is asked again once 5 s have passed:
  // one payment's verify and settle ask once. Which check x402 makes of a signature depends on
  // it; the token checks the signature itself on chain whatever it was.
  const deployed = new Map<Address, Hex>();
  const changeable = new RecentMap<Address, { code: Hex | undefined }>({
    maxAgeMs: 5_000,
    max: 10_000,
  });
  const contractCode = async (address: Address) => {
    const known = deployed.get(address);
    if (known) return known;
    const recent = changeable.get(address);
    if (recent) return recent.code;
    const code = await client.getCode({ address });
    const immutable = code && code !== "0x" && !code.toLowerCase().startsWith("0xef0100");
    if (immutable) setBounded(deployed, address, code, 10_000);
    else changeable.set(address, { code });
    return code;
  };
  type ReadArgs = Parameters<typeof client.readContract>[0];
  type VerifyArgs = Parameters<typeof client.verifyTypedData>[0];
  const signer = toFacilitatorEvmSigner(
    {
      // Only the first is x402's `address`; getAddresses (below) lists them all.
      address: senders.addresses[0]!,
      // x402's simulation of the transfer it will send runs as that transfer's gas estimate,
      // kept for its send (./gas-estimates.ts): one execution on the chain instead of two.
      readContract: async (args) => {
        if (args.functionName !== "transferWithAuthorization") {
          return client.readContract(args as ReadArgs);
        }
        const data = encodeFunctionData({
          abi: args.abi as Abi,
          functionName: args.functionName,
          args: args.args,
        });
        await senders.estimates.simulate({ to: args.address, data });
        return undefined;
      },
      verifyTypedData: (args) => client.verifyTypedData(args as VerifyArgs),
      writeContract: ({ address, abi, functionName, args, dataSuffix }) => {
        const data = encodeFunctionData({ abi: abi as Abi, functionName, args });
        const broadcast = authorizationOf(functionName, args);
        return senders.send(
          { to: address, data: dataSuffix ? concat([data, dataSuffix]) : data },
          ({ hash, from, nonce }) =>
            broadcast
              ? options.onBroadcast?.({
                  ...broadcast,
                  txHash: hash,
                  sender: from,
                  senderNonce: nonce,
                })
              : undefined,
        );
      },
      sendTransaction: ({ to, data }) => senders.send({ to, data }),
      // Awaited together: one watcher reads each block once for every settlement in flight.
      waitForTransactionReceipt: ({ hash, timeout }) =>
        senders.receipts.wait(hash, timeout ?? options.confirmationTimeoutMs),
      getCode: (args) => contractCode(args.address),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs },
  );

  const allSigners = { ...signer, getAddresses: () => senders.addresses };
  const facilitator = new x402Facilitator().register(
    settlement.network,
    // What x402 remembers of a settlement it stopped waiting for, forgotten once the node
    // drops the transaction, so that a resubmit sends it again (./pending-settlements.ts).
    new ExactEvmScheme(allSigners, { pendingSettlementStore: pendingSettlementsInNode(client) }),
  );
  return {
    signerAddresses: senders.addresses,
    receiptOf: (hash) => senders.receipts.recent(hash),
    stop: () => senders.stop(),
    verify: async (payload, requirements) => {
      // A plain payment from an address without code is verified by the token's own execution
      // of it (./verify-by-chain.ts): x402 recovers its signature again when settling it.
      const byTheChain =
        payload.x402Version === 2 && requirements.network === settlement.network
          ? await verifiedByTheChain(payload, requirements, {
              code: contractCode,
              simulate: (request) => senders.estimates.simulate(request),
            })
          : undefined;
      if (byTheChain) return byTheChain;
      const verdict = await facilitator.verify(payload, requirements);
      // x402 answers "invalid signature" (or a balance it could not read) when the RPC it asked
      // did not answer: a refusal counts only if the chain answers now, else this throws and
      // the app server answers 503 (nothing charged, retry) instead of a false 402.
      if (!verdict.isValid) await client.getBlockNumber({ cacheTime: 0 });
      return verdict;
    },
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as SupportedResponse,
  };
}

/** The configured balance check (intervalMs 0: none). */
export function balanceWatch(settings: {
  minimumWei: bigint;
  intervalMs: number;
}): BalanceWatch | undefined {
  return settings.intervalMs > 0 ? settings : undefined;
}

/** EIP-3009's transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, ...). */
function authorizationOf(
  functionName: string,
  args: readonly unknown[],
): Pick<SettlementBroadcast, "authorizer" | "authorizationNonce"> | undefined {
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
