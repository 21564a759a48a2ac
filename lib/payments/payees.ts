// Payee consent: an agent's payee other than its operator's own wallet takes effect only when
// that wallet signs (EIP-712, lib/shared/payee-consent.ts). Until then the agent keeps its
// previous payee (or none: paid nowhere, and it cannot bid), and the named wallet has no
// rights over the agent (it is not one of the wallets that "operate" it).
import { randomBytes } from "node:crypto";
import { type Address, getAddress, type Hex } from "viem";
import type { Db } from "@/lib/db";
import { DomainError, forbidden } from "@/lib/platform/errors";
import type { Agent, PayeeConsent, Prisma } from "@/lib/generated/prisma/client";
import { getChainClient } from "./chain/client";
import { getSettlementNetwork } from "./chain/network";
import { errorSummary } from "@/lib/platform/redact";
import { sameAddress } from "@/lib/shared/address";
import {
  PAYEE_CONSENT_STATEMENT,
  payeeConsentTypedData,
  type PayeeConsentMessage,
} from "@/lib/shared/payee-consent";
import type { PayeeConsentRequestView } from "@/lib/shared/view-types";
import { newId } from "@/lib/kernel/ids";

/** Whether a payment from `payer` to `payee` would move money to its own sender. */
export const isSelfPayment = (payer: string, payee: string) => sameAddress(payer, payee);

/** 403 `self_payment`: a bid whose agent pays the job's own poster. */
export function assertNotSelfPayment(poster: string, payee: string): void {
  if (!isSelfPayment(poster, payee)) return;
  throw new DomainError(
    "forbidden",
    "this agent's payee is the job's poster: a poster cannot pay itself",
    {},
    "self_payment",
  );
}

/** How long a consent request can be signed. */
export const CONSENT_TTL_DAYS = 7;

/**
 * The payee fields an agent takes when its operator names `payee`: the operator's own wallet
 * (or the payee already in effect) applies at once; any other wallet waits for its consent.
 */
export function namePayee(
  operator: Address,
  payee: Address,
  current: Address | null,
): { walletAddress: Address | null; pendingWalletAddress: Address | null; needsConsent: boolean } {
  if (sameAddress(payee, operator) || (current !== null && sameAddress(payee, current))) {
    return { walletAddress: payee, pendingWalletAddress: null, needsConsent: false };
  }
  return { walletAddress: current, pendingWalletAddress: payee, needsConsent: true };
}

/**
 * Replaces the agent's open consent request (if any) with `payee`'s, or just closes it when
 * `payee` is null (the operator named a wallet that needs none). In the agent write's
 * transaction.
 */
export async function replaceConsentRequest(
  tx: Prisma.TransactionClient,
  agent: { id: string; operatorAddress: string },
  payee: Address | null,
): Promise<void> {
  await tx.payeeConsent.updateMany({
    where: { agentId: agent.id, status: "pending" },
    data: { status: "superseded" },
  });
  if (!payee) return;
  await tx.payeeConsent.create({
    data: {
      id: newId("pc"),
      agentId: agent.id,
      payeeAddress: payee,
      operatorAddress: agent.operatorAddress,
      nonce: `0x${randomBytes(32).toString("hex")}`,
      deadline: new Date(Date.now() + CONSENT_TTL_DAYS * 86_400_000),
    },
  });
}

/**
 * The agent's open consent request with the typed data to sign: for its operator and for the
 * named wallet only (403 anyone else; 404 `no_pending_payee` when nothing waits).
 */
export async function getConsentRequest(
  db: Db,
  caller: Address,
  agent: Agent,
): Promise<PayeeConsentRequestView> {
  const request = await openRequest(db, agent.id);
  if (
    !sameAddress(caller, agent.operatorAddress) &&
    !(request && sameAddress(caller, request.payeeAddress))
  ) {
    throw forbidden(
      "not_consent_party",
      "only the agent's operator and the wallet it named may see this request",
    );
  }
  if (!request) throw noPendingPayee(agent.id);
  return toRequestView(request);
}

/**
 * The named wallet's signature over the open request: verified (ECDSA, else EIP-1271 /
 * EIP-6492 on the settlement chain), then, in one transaction, the request is consumed (its
 * nonce can never serve again) and the wallet becomes the agent's payee.
 */
export async function consentToPayee(db: Db, agent: Agent, signature: string): Promise<Agent> {
  const request = await openRequest(db, agent.id);
  if (!request) throw noPendingPayee(agent.id);
  if (request.deadline.getTime() <= Date.now()) {
    throw new DomainError(
      "conflict",
      "this consent request has expired; the operator can name the wallet again for a new one",
      {},
      "consent_expired",
    );
  }
  if (!(await signedBy(request, signature as Hex))) {
    throw new DomainError(
      "forbidden",
      `the signature is not ${request.payeeAddress}'s consent to this request`,
      {},
      "invalid_consent_signature",
    );
  }
  return db.$transaction(async (tx) => {
    const consumed = await tx.payeeConsent.updateMany({
      where: { id: request.id, status: "pending" },
      data: { status: "consented", signature: signature.toLowerCase(), consentedAt: new Date() },
    });
    if (consumed.count !== 1) throw noPendingPayee(agent.id);
    await tx.agent.updateMany({
      where: { id: agent.id, pendingWalletAddress: request.payeeAddress },
      data: { walletAddress: request.payeeAddress, pendingWalletAddress: null },
    });
    return tx.agent.findUniqueOrThrow({ where: { id: agent.id } });
  });
}

/**
 * Whether `payee` may be paid for `agent`'s bids: its operator's own wallet, or a wallet that
 * signed its consent for this agent (now or before). Settle checks it for every bid, also for
 * bids made before consent existed.
 */
export async function isConsentedPayee(
  db: Db | Prisma.TransactionClient,
  agent: { id: string; operatorAddress: string },
  payee: string,
): Promise<boolean> {
  if (sameAddress(payee, agent.operatorAddress)) return true;
  const consent = await db.payeeConsent.findFirst({
    where: { agentId: agent.id, payeeAddress: getAddress(payee), status: "consented" },
    select: { id: true },
  });
  return consent !== null;
}

/** 409 `payee_consent_pending`: the agent has no payee that agreed to be paid. */
export function payeeConsentPending(agent: { id: string; pendingWalletAddress: string | null }) {
  const named = agent.pendingWalletAddress ? ` (${agent.pendingWalletAddress})` : "";
  return new DomainError(
    "conflict",
    `agent ${agent.id} has no payee yet: the wallet it names${named} has not signed its ` +
      "consent (GET /api/v1/agents/:id/payee-consent gives what to sign)",
    {},
    "payee_consent_pending",
  );
}

function openRequest(db: Db, agentId: string): Promise<PayeeConsent | null> {
  return db.payeeConsent.findFirst({ where: { agentId, status: "pending" } });
}

function noPendingPayee(agentId: string) {
  return new DomainError(
    "not_found",
    `agent ${agentId} has no payee waiting for consent`,
    {},
    "no_pending_payee",
  );
}

function consentMessage(request: PayeeConsent): PayeeConsentMessage {
  return {
    statement: PAYEE_CONSENT_STATEMENT,
    agentId: request.agentId,
    operator: getAddress(request.operatorAddress),
    payee: getAddress(request.payeeAddress),
    nonce: request.nonce as Hex,
    deadline: BigInt(Math.floor(request.deadline.getTime() / 1000)),
  };
}

function toRequestView(request: PayeeConsent): PayeeConsentRequestView {
  const typedData = payeeConsentTypedData(getSettlementNetwork().chain.id, consentMessage(request));
  return {
    agentId: request.agentId,
    payeeAddress: getAddress(request.payeeAddress),
    operatorAddress: getAddress(request.operatorAddress),
    expiresAt: request.deadline.toISOString(),
    typedData: {
      ...typedData,
      types: { PayeeConsent: typedData.types.PayeeConsent.map((field) => ({ ...field })) },
      message: { ...typedData.message, deadline: typedData.message.deadline.toString() },
    },
  };
}

async function signedBy(request: PayeeConsent, signature: Hex): Promise<boolean> {
  const typedData = payeeConsentTypedData(getSettlementNetwork().chain.id, consentMessage(request));
  try {
    // ECDSA first (no chain call for a plain wallet), then the contract wallet's own answer.
    return await getChainClient().verifyTypedData({
      address: getAddress(request.payeeAddress),
      signature,
      mode: "eoa",
      blockTag: "latest",
      ...typedData,
    });
  } catch (error) {
    console.error(`Payee consent: the chain could not check a signature: ${errorSummary(error)}`);
    throw new DomainError(
      "unavailable",
      "the chain is not answering; retry shortly",
      { "Retry-After": "5" },
      "chain_unavailable",
    );
  }
}
