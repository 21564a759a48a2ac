// Where a protected payment's money is, in plain words: one headline and one or two sentences
// per state of the hold (and of its dispute), worded for who is reading. Pure.
import { sameAddress } from "@/lib/shared/address";
import type { JobStatus } from "@/lib/shared/enums";
import { formatUsdc } from "@/lib/shared/money";
import type { PaymentView } from "@/lib/shared/view-types";
import { formatDeadline } from "./when";

export type EscrowView = NonNullable<PaymentView["escrow"]>;

export interface EscrowStory {
  title: string;
  body: string;
  tone: "waiting" | "done" | "returned" | "alert";
}

export interface StoryFacts {
  escrow: EscrowView;
  jobStatus: JobStatus;
  agentName: string;
  /** The viewer is the job's poster: "you" instead of "the poster". */
  viewerIsPoster: boolean;
  /** The page's render time (ms). */
  now: number;
}

const usdc = (amount: number) => `${formatUsdc(amount)} USDC`;

export function escrowStory(facts: StoryFacts): EscrowStory {
  const { escrow, jobStatus, agentName, viewerIsPoster, now } = facts;
  const poster = viewerIsPoster ? "you" : "the poster";
  const posters = viewerIsPoster ? "your" : "the poster's";
  const completes = viewerIsPoster ? "you complete" : "the poster completes";
  const fee = escrow.feeUsdc > 0 ? ` (after the platform's fee of ${usdc(escrow.feeUsdc)})` : "";
  switch (escrow.state) {
    case "held": {
      if (openDispute(escrow)) {
        return {
          title: "Dispute open — the payment is frozen",
          body: `${usdc(escrow.heldUsdc)} stays in escrow until a platform admin decides: release it to ${agentName}, return it to ${poster}, or split it.`,
          tone: "alert",
        };
      }
      if (Date.parse(escrow.heldUntil) <= now) {
        return {
          title: "The hold has expired",
          body: `Nothing can be released any more: ${poster} can reclaim the ${usdc(escrow.heldUsdc)} from the escrow contract on chain, with the payment id below.`,
          tone: "alert",
        };
      }
      if (jobStatus === "delivered" && escrow.releaseAt) {
        return {
          title: `Held in escrow until ${completes} the job`,
          body: `${usdc(escrow.heldUsdc)} is released to ${agentName} when ${completes} the job, or automatically on ${formatDeadline(escrow.releaseAt)} unless a dispute is opened first.`,
          tone: "waiting",
        };
      }
      return {
        title: `Held in escrow: ${usdc(escrow.heldUsdc)}`,
        body:
          `It is released to ${agentName} when ${completes} the job after delivery.` +
          // The poster reads the cancel deadline beside its button instead.
          (viewerIsPoster
            ? ""
            : ` It must be delivered by ${formatDeadline(escrow.deliverBy)}: after that nothing can be delivered, and the poster can cancel the job and get it back.`),
        tone: "waiting",
      };
    }
    case "releasing":
      return {
        title: `Being released to ${agentName}`,
        body: "The escrow's release is being confirmed on chain; this page shows the outcome once the chain has decided.",
        tone: "waiting",
      };
    case "released":
      return {
        title: `Released to ${agentName}`,
        body: `${usdc(escrow.releasedUsdc)} went from the escrow to ${agentName}'s wallet${fee}.`,
        tone: "done",
      };
    case "refunding":
      return {
        title: `Being returned to ${poster}`,
        body: "The escrow's refund is being confirmed on chain; this page shows the outcome once the chain has decided.",
        tone: "waiting",
      };
    case "refunded":
      return {
        title: `Returned to ${poster}`,
        body: `${usdc(escrow.refundedUsdc)} went from the escrow back to ${posters} wallet.`,
        tone: "returned",
      };
    case "splitting":
      return {
        title: "Being split",
        body: `The escrow is paying ${agentName} its share and returning the rest to ${poster}; this page shows the outcome once the chain has decided.`,
        tone: "waiting",
      };
    case "split":
      return {
        title: `Split between ${agentName} and ${poster}`,
        body: `${usdc(escrow.releasedUsdc)} went to ${agentName}${fee} and ${usdc(escrow.refundedUsdc)} back to ${posters} wallet.`,
        tone: "done",
      };
    case "reclaimed":
      return {
        title: `Reclaimed by ${poster} on chain`,
        body: `After the hold expired, ${usdc(escrow.refundedUsdc)} went back to ${posters} wallet straight from the escrow contract.`,
        tone: "returned",
      };
  }
}

export const openDispute = (escrow: EscrowView) =>
  escrow.dispute !== null && escrow.dispute.resolvedAt === null;

/** Held past its deliverBy (`now` in ms): the poster may cancel, nothing can be delivered. */
export const deliveryClosed = (escrow: EscrowView, now: number) =>
  escrow.state === "held" && Date.parse(escrow.deliverBy) <= now;

const RESOLUTIONS = {
  release: "released to the agent",
  refund: "refunded to the poster",
  split: "split between the agent and the poster",
} as const;

/** "Opened Dec 3, 2026, 14:05 UTC by the agent" and, once resolved, the decision. */
export function disputeLines(
  dispute: NonNullable<EscrowView["dispute"]>,
  posterAddress: string,
  viewer: string | null,
): { opened: string; resolved: string | null } {
  const by =
    viewer && sameAddress(dispute.openedBy, viewer)
      ? "you"
      : sameAddress(dispute.openedBy, posterAddress)
        ? "the poster"
        : "the agent";
  return {
    opened: `Opened ${formatDeadline(dispute.openedAt)} by ${by}`,
    resolved:
      dispute.resolvedAt && dispute.resolution
        ? `Resolved ${formatDeadline(dispute.resolvedAt)}: ${RESOLUTIONS[dispute.resolution]}`
        : null,
  };
}

export const TRANSACTION_LABELS: Record<EscrowView["transactions"][number]["kind"], string> = {
  capture: "Release to the agent",
  void: "Return to the poster",
  reclaim: "Reclaim by the poster",
  refund: "Refund to the poster",
};
