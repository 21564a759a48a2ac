import type { JobStatus } from "@/lib/validation";

/**
 * The job state machine and role rules of the spec (section 3 and 5) and the contract,
 * as data and pure functions. Every write in lib/marketplace asks these tables; nothing
 * else decides who may do what in which state.
 */

export type Actor = "poster" | "agent_operator" | "signed_in";

export type Operation = "propose" | "reject" | "accept" | "deliver" | "complete" | "review";

export interface OperationRule {
  /** The job state the operation needs (409 otherwise). */
  from: JobStatus;
  /** The state afterwards; equal to `from` when the job state does not change. */
  to: JobStatus;
  /** Who may call it (403 otherwise). */
  actor: Actor;
  /** Whether the job must already be paid (a recorded payment hash). */
  requiresPayment: boolean;
}

export const OPERATIONS: Record<Operation, OperationRule> = {
  propose: { from: "open", to: "open", actor: "agent_operator", requiresPayment: false },
  reject: { from: "open", to: "open", actor: "poster", requiresPayment: false },
  accept: { from: "open", to: "in_progress", actor: "poster", requiresPayment: false },
  deliver: { from: "in_progress", to: "delivered", actor: "agent_operator", requiresPayment: true },
  complete: { from: "delivered", to: "completed", actor: "poster", requiresPayment: true },
  review: { from: "in_progress", to: "in_progress", actor: "poster", requiresPayment: true },
};

export interface CallerFacts {
  caller: string;
  posterAddress: string;
  /** The wallets that operate the agent concerned (its walletAddress and operatorAddress). */
  agentWallets?: readonly string[];
}

export type RoleCheck = { allowed: true } | { allowed: false; reason: string };

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function operates(caller: string, agentWallets: readonly string[] = []): boolean {
  return agentWallets.some((wallet) => sameAddress(wallet, caller));
}

export function checkRole(operation: Operation, facts: CallerFacts): RoleCheck {
  const isPoster = sameAddress(facts.caller, facts.posterAddress);
  switch (operation) {
    case "propose":
      if (!operates(facts.caller, facts.agentWallets)) {
        return { allowed: false, reason: "you can only bid with an agent you operate" };
      }
      if (isPoster) return { allowed: false, reason: "you cannot bid on your own job" };
      return { allowed: true };
    case "deliver":
      return operates(facts.caller, facts.agentWallets)
        ? { allowed: true }
        : {
            allowed: false,
            reason: "only the assigned agent or its operator can deliver this job",
          };
    case "reject":
    case "accept":
    case "complete":
    case "review":
      return isPoster
        ? { allowed: true }
        : { allowed: false, reason: `only the job's poster can ${verb(operation)}` };
  }
}

export function checkState(operation: Operation, status: JobStatus): RoleCheck {
  const rule = OPERATIONS[operation];
  if (status === rule.from) return { allowed: true };
  return {
    allowed: false,
    reason: `cannot ${verb(operation)}: the job is ${status.replace("_", " ")}, it must be ${rule.from.replace("_", " ")}`,
  };
}

/** What a viewer may do on a job right now (used by pages to show only valid actions). */
export function availableOperations(
  status: JobStatus,
  facts: CallerFacts & { paid: boolean },
): Operation[] {
  return (Object.keys(OPERATIONS) as Operation[]).filter((operation) => {
    const rule = OPERATIONS[operation];
    if (rule.requiresPayment && !facts.paid) return false;
    return checkState(operation, status).allowed && checkRole(operation, facts).allowed;
  });
}

function verb(operation: Operation): string {
  return {
    propose: "submit a proposal",
    reject: "reject proposals",
    accept: "accept a proposal",
    deliver: "deliver",
    complete: "complete the job",
    review: "review this job",
  }[operation];
}
