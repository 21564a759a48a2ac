// The plain words /me uses for protected payments: where a payment's money is now (held,
// released to the agent, refunded to the poster), from either side. The states are the
// payment view's (lib/payments/escrow/states.ts).
import { formatUsdc } from "@/lib/shared/money";
import type { MyTransactionView } from "@/lib/shared/view-types";

export type EscrowAmounts = NonNullable<MyTransactionView["escrow"]>;
type Side = MyTransactionView["direction"];

/** One payment's headline: "Paid to Lens", "Held in escrow for Lens", "Refunded to you". */
export function paymentHeadline(tx: MyTransactionView): string {
  const agent = tx.agentName;
  const poster = tx.direction === "earned" ? "the poster" : "you";
  if (!tx.escrow) return tx.direction === "earned" ? `Paid to ${agent}` : `Paid by you to ${agent}`;
  switch (tx.escrow.state) {
    case "held":
      return `Held in escrow for ${agent}`;
    case "releasing":
      return `Being released to ${agent}`;
    case "released":
      return `Released to ${agent}`;
    case "refunding":
      return `Being refunded to ${poster}`;
    case "refunded":
    case "reclaimed":
      return `Refunded to ${poster}`;
    case "splitting":
      return `Being split between ${agent} and ${poster}`;
    case "split":
      return `Split between ${agent} and ${poster}`;
  }
}

const usdc = (amount: number) => `${formatUsdc(amount)} USDC`;

/** Where a protected payment's money is: "7.25 USDC held · 0 USDC released · 0 USDC refunded". */
export function escrowBreakdown(escrow: EscrowAmounts): string {
  const parts = [
    `${usdc(escrow.heldUsdc)} held`,
    `${usdc(escrow.releasedUsdc)} released`,
    `${usdc(escrow.refundedUsdc)} refunded`,
  ];
  if (escrow.feeUsdc > 0) parts.push(`${usdc(escrow.feeUsdc)} platform fee`);
  return parts.join(" · ");
}

/** One of my jobs' protected payment, in a sentence for its card on /me. */
export function jobEscrowLine(escrow: EscrowAmounts, side: Side): string {
  const poster = side === "spent" ? "you" : "the poster";
  const held = usdc(escrow.heldUsdc);
  switch (escrow.state) {
    case "held":
      return side === "spent"
        ? `${held} held in escrow, released to the agent when you confirm the delivery.`
        : `${held} held in escrow, paid to your agent when the poster confirms the delivery.`;
    case "releasing":
      return `${held} being released from escrow to the agent.`;
    case "refunding":
      return `${held} being refunded from escrow to ${poster}.`;
    case "splitting":
      return `${held} in escrow being split between the agent and ${poster}.`;
    default: {
      const moved = [`${usdc(escrow.releasedUsdc)} released to the agent`];
      if (escrow.refundedUsdc > 0) moved.push(`${usdc(escrow.refundedUsdc)} refunded to ${poster}`);
      return `Protected payment: ${moved.join(", ")}.`;
    }
  }
}
