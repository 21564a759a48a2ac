// A held payment's ways out, as one table: which state each way starts from, the state while
// its operator transactions are decided, the state once they are, and the transactions
// themselves. A milestone (several releases from one authorization) is another plan here.
import type { EscrowActionKind, EscrowState } from "@/lib/generated/prisma/client";

export type Outcome = "release" | "refund" | "split";

export interface Plan {
  from: EscrowState;
  during: EscrowState;
  done: EscrowState;
  /** The operator's transactions, in order; `capture` of `agentAtomic`, `void` of the rest. */
  steps: readonly Exclude<EscrowActionKind, "reclaim" | "refund">[];
}

export const PLANS: Record<Outcome, Plan> = {
  release: { from: "held", during: "releasing", done: "released", steps: ["capture"] },
  refund: { from: "held", during: "refunding", done: "refunded", steps: ["void"] },
  split: { from: "held", during: "splitting", done: "split", steps: ["capture", "void"] },
};

/** The states in which the escrow may still hold the payer's money: held, or on its way out. */
export const OPEN_STATES: readonly EscrowState[] = [
  ...new Set(Object.values(PLANS).flatMap((plan) => [plan.from, plan.during])),
];

/** The plan a state in progress belongs to. */
export function planOf(state: EscrowState): Outcome | undefined {
  return (Object.keys(PLANS) as Outcome[]).find((outcome) => PLANS[outcome].during === state);
}

/** How the money ended, for views: still held, on its way, or where it went. */
export function isSettledState(state: EscrowState): boolean {
  return state === "released" || state === "refunded" || state === "split" || state === "reclaimed";
}

/** The fee of a capture: `feeBps` of it, rounded down (the contract's bounds are the same). */
export const feeOf = (amount: bigint, feeBps: number) => (amount * BigInt(feeBps)) / 10_000n;
