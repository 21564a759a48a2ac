// The facilitator this app server settles through, created once per process from the
// configuration: our own key in this process (`npm run dev`, one server), or a facilitator
// over HTTP (our `npm run facilitator` service beside N app servers, or a hosted one).
import "server-only";
import type { Hex, TransactionReceipt } from "viem";
import { getConfig } from "@/lib/platform/config";
import { getDb } from "@/lib/db";
import {
  balanceWatch,
  createHttpFacilitator,
  createSelfHostedFacilitator,
  type FacilitatorClient,
  type SelfHostedFacilitator,
  type SettlementBroadcast,
} from "./facilitators";
import { getSettlementNetwork } from "../chain/network";
import { recordSettlementTxHash } from "../ledger/settlements";

export function getFacilitator(): FacilitatorClient {
  const cache = globalThis as typeof globalThis & { __x402Facilitator?: FacilitatorClient };
  cache.__x402Facilitator ??= createConfiguredFacilitator();
  return cache.__x402Facilitator;
}

/**
 * The receipt of a settlement the facilitator in this process waited for lately (the chain's
 * own answer, already read); none with a facilitator over HTTP.
 */
export function knownReceipt(hash: Hex): TransactionReceipt | undefined {
  const facilitator = getFacilitator() as Partial<SelfHostedFacilitator>;
  return facilitator.receiptOf?.(hash);
}

/** Whether the facilitator runs in this process (its verify makes no request to another). */
export function facilitatorInProcess(): boolean {
  return "receiptOf" in getFacilitator();
}

function createConfiguredFacilitator(): FacilitatorClient {
  const network = getSettlementNetwork();
  const config = network.facilitator;
  if (config.kind === "http") {
    const { CDP_API_KEY_ID, CDP_API_KEY_SECRET } = getConfig();
    return createHttpFacilitator({
      url: config.url,
      secret: config.secret,
      timeoutMs: getConfig().FACILITATOR_TIMEOUT_SECONDS * 1000,
      cdpKeys:
        config.cdpAuth && CDP_API_KEY_ID && CDP_API_KEY_SECRET
          ? { apiKeyId: CDP_API_KEY_ID, apiKeySecret: CDP_API_KEY_SECRET }
          : undefined,
    });
  }
  return createSelfHostedFacilitator(network, {
    privateKeys: config.privateKeys,
    confirmationTimeoutMs: config.confirmationTimeoutMs,
    balance: balanceWatch(config.balance),
    onBroadcast: recordBroadcast,
  });
}

/**
 * The hash goes into the ledger before the transaction is broadcast. Best effort: should the
 * write fail, the transfer is still found later from the token's logs.
 */
async function recordBroadcast(broadcast: SettlementBroadcast): Promise<void> {
  await recordSettlementTxHash(
    await getDb(),
    { payer: broadcast.authorizer, authorizationNonce: broadcast.authorizationNonce },
    broadcast.txHash,
    { address: broadcast.sender, nonce: broadcast.senderNonce },
  );
}
