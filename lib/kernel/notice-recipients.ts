import type { Address } from "viem";
import { sameAddress } from "@/lib/shared/address";
import type { NotificationType } from "@/lib/shared/schemas/notifications";
import { checksumAddress } from "./serialize";

/**
 * Who is told about what: the one table. A job has two sides: its poster, and the agent
 * concerned (the proposal's or the assigned one), which is its payee wallet and its operator
 * (both "operate" the agent: both may bid, deliver and talk in its threads). Each
 * notification type goes to the side that did not act; a message goes to the side that did
 * not write it. Event types missing here (job.created, payment.settled) notify no one: the
 * first concerns no one yet, the second is followed by job.accepted.
 */
export type Audience = "poster" | "agent" | "other_side" | "both";

export const AUDIENCE: Record<NotificationType, Audience> = {
  "proposal.submitted": "poster",
  "proposal.rejected": "agent",
  "job.accepted": "agent",
  "job.delivered": "poster",
  "job.completed": "agent",
  "review.created": "agent",
  "message.created": "other_side",
  // Protected payments: the agent hears its money was released or the job cancelled, the
  // poster that its money came back; both sides hear of a dispute and its resolution (the
  // feed does not say who opened it, so the opener is told too).
  "payment.released": "agent",
  "payment.refunded": "poster",
  "job.cancelled": "agent",
  "dispute.opened": "both",
  "dispute.resolved": "both",
};

/** The two sides of a job for one notice. */
export interface Sides {
  posterAddress: string;
  /** The agent's payee wallet and operator (empty when no agent is concerned). */
  agentWallets: readonly string[];
}

export function isNotificationType(type: string): type is NotificationType {
  return Object.hasOwn(AUDIENCE, type);
}

/**
 * The wallets to notify (checksummed, each once). `actor`, when known, is never told of its
 * own act: a message's sender, or a wallet that is on both sides of a job.
 */
export function recipientsOf(type: NotificationType, sides: Sides, actor?: string): Address[] {
  const audience = AUDIENCE[type];
  const posterSide = [sides.posterAddress];
  const wallets =
    audience === "both"
      ? [...posterSide, ...sides.agentWallets]
      : audience === "poster"
        ? posterSide
        : audience === "agent"
          ? sides.agentWallets
          : actor !== undefined && sameAddress(actor, sides.posterAddress)
            ? sides.agentWallets
            : posterSide;
  const unique = new Map<string, Address>();
  for (const wallet of wallets) {
    if (actor !== undefined && sameAddress(wallet, actor)) continue;
    const address = checksumAddress(wallet);
    unique.set(address, address);
  }
  return [...unique.values()];
}
