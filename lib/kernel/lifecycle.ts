import { type EventFact, recordEvent } from "./write";
import type { Prisma } from "@/lib/generated/prisma/client";
import { conflict, DomainError } from "@/lib/platform/errors";
import { sameAddress } from "@/lib/shared/address";
import type { JobStatus } from "@/lib/shared/enums";
import type { ErrorCode } from "@/lib/shared/error-codes";
import type { EventType } from "@/lib/shared/schemas/events";
import { lockJobInStatus } from "./locks";

/**
 * The job state machine and role rules of the spec (sections 3 and 5) and the contract, as
 * one table. Every write goes through it: `runWrite` (the write's transaction, which also
 * writes the events the write announces), `authorize` (403 for the wrong actor, then 409 for
 * the wrong state), `transition` (the conditional UPDATE from the rule's `from` to its `to`,
 * announcing the rule's event) and `holdState` (a write that keeps the state locks the job in
 * the rule's `from`; it announces its event with `announce` once its row exists).
 */

export type Actor = "poster" | "bidder" | "assigned_agent";

export type Operation =
  "propose" | "reject" | "pay" | "accept" | "deliver" | "review" | "complete" | "cancel";

export interface OperationRule {
  /** The job state the operation needs (409 otherwise). */
  from: JobStatus;
  /** The state afterwards; equal to `from` when the job state does not change. */
  to: JobStatus;
  /** Who may do it (403 otherwise). */
  actor: Actor;
  /** Whether the job must already be paid (its payment hash recorded). */
  requiresPayment: boolean;
}

export const OPERATIONS: Record<Operation, OperationRule> = {
  propose: { from: "open", to: "open", actor: "bidder", requiresPayment: false },
  reject: { from: "open", to: "open", actor: "poster", requiresPayment: false },
  pay: { from: "open", to: "open", actor: "poster", requiresPayment: false },
  accept: { from: "open", to: "in_progress", actor: "poster", requiresPayment: false },
  deliver: { from: "in_progress", to: "delivered", actor: "assigned_agent", requiresPayment: true },
  review: { from: "in_progress", to: "in_progress", actor: "poster", requiresPayment: true },
  complete: { from: "delivered", to: "completed", actor: "poster", requiresPayment: true },
  // Protected payments only (lib/payments/escrow): an undelivered job past its delivery
  // deadline; the held payment goes back to the poster.
  cancel: { from: "in_progress", to: "cancelled", actor: "poster", requiresPayment: true },
};

/**
 * The states a job is in until its delivery. No operation leads back to them once a job has
 * left them (lifecycle.test.ts holds it over the table; the two writers outside it, a
 * dispute's resolution in protected-payments.ts and a payer's reclaim in escrow/holds.ts, write
 * only `completed` or `cancelled`), and a job's attachments come only with its delivery
 * (transitions.ts), so a job in one of them has none: the job views' JSON looks for none there
 * (job-rows.ts).
 */
export const BEFORE_DELIVERY: readonly JobStatus[] = ["open", "in_progress"];

/**
 * What each write announces in the event feed (lib/events), in the write's own transaction.
 * `post` is the job's creation, which has no state before it.
 */
export const ANNOUNCEMENTS: Record<Operation | "post", EventType> = {
  post: "job.created",
  propose: "proposal.submitted",
  reject: "proposal.rejected",
  pay: "payment.settled",
  accept: "job.accepted",
  deliver: "job.delivered",
  review: "review.created",
  complete: "job.completed",
  cancel: "job.cancelled",
};

/** Announces `operation`'s event for the ids it concerns (written when runWrite ends). */
export function announce(
  tx: Prisma.TransactionClient,
  operation: Operation | "post",
  subject: Omit<EventFact, "type">,
): void {
  recordEvent(tx, { type: ANNOUNCEMENTS[operation], ...subject });
}

/** Who is asking, about which job: the facts the actor rules read. */
export interface CallerFacts {
  caller: string;
  posterAddress: string;
  /** The wallets that operate the agent concerned: the bidding or the assigned agent's. */
  agentWallets?: readonly string[];
}

export type RoleCheck =
  | { allowed: true }
  | {
      allowed: false;
      reason: string;
      /** The error's stable code (lib/shared/error-codes.ts). */ code: ErrorCode;
    };

/**
 * The wallets that operate an agent: its payee (once it agreed: a wallet still asked for its
 * consent has no rights) and its operator.
 */
export function agentWallets(agent: {
  walletAddress: string | null;
  operatorAddress: string;
}): string[] {
  return agent.walletAddress === null
    ? [agent.operatorAddress]
    : [agent.walletAddress, agent.operatorAddress];
}

/** A wallet "operates" an agent when it is the agent's payee wallet or its operator. */
export function operates(caller: string, agentWallets: readonly string[] = []): boolean {
  return agentWallets.some((wallet) => sameAddress(wallet, caller));
}

const ACTORS: Record<Actor, (facts: CallerFacts) => RoleCheck> = {
  poster: (facts) =>
    sameAddress(facts.caller, facts.posterAddress)
      ? { allowed: true }
      : { allowed: false, reason: "only the job's poster can do this", code: "not_poster" },
  bidder: (facts) => {
    if (!operates(facts.caller, facts.agentWallets)) {
      return {
        allowed: false,
        reason: "you can only bid with an agent you operate",
        code: "not_agent_operator",
      };
    }
    // Through any agent it operates: a poster does not bid on its own job.
    if (
      sameAddress(facts.caller, facts.posterAddress) ||
      operates(facts.posterAddress, facts.agentWallets)
    ) {
      return { allowed: false, reason: "you cannot bid on your own job", code: "own_job" };
    }
    return { allowed: true };
  },
  assigned_agent: (facts) =>
    operates(facts.caller, facts.agentWallets)
      ? { allowed: true }
      : {
          allowed: false,
          reason: "only the assigned agent or its operator can deliver this job",
          code: "not_assigned_agent",
        },
};

/** The code of a write that needs the job in a state it is not in. */
const NOT_IN_STATE: Record<JobStatus, ErrorCode> = {
  open: "job_not_open",
  in_progress: "job_not_in_progress",
  delivered: "job_not_delivered",
  completed: "conflict",
  cancelled: "conflict",
};

const VERBS: Record<Operation, string> = {
  propose: "submit a proposal",
  reject: "reject proposals",
  pay: "pay for a proposal",
  accept: "accept a proposal",
  deliver: "deliver",
  review: "review this job",
  complete: "complete the job",
  cancel: "cancel the job",
};

export function checkRole(operation: Operation, facts: CallerFacts): RoleCheck {
  const check = ACTORS[OPERATIONS[operation].actor](facts);
  if (check.allowed || OPERATIONS[operation].actor !== "poster") return check;
  return {
    allowed: false,
    reason: `only the job's poster can ${VERBS[operation]}`,
    code: "not_poster",
  };
}

export function checkState(operation: Operation, status: JobStatus): RoleCheck {
  const rule = OPERATIONS[operation];
  if (status === rule.from) return { allowed: true };
  return {
    allowed: false,
    reason: `cannot ${VERBS[operation]}: the job is ${label(status)}, it must be ${label(rule.from)}`,
    code: NOT_IN_STATE[rule.from],
  };
}

/** Throws the 403 or 409 the table gives, in that order: actor, state, payment. */
export function authorize(
  operation: Operation,
  job: { status: JobStatus; posterAddress: string; paymentTxHash: string | null },
  caller: string,
  agentWallets?: readonly string[],
): void {
  const role = checkRole(operation, { caller, posterAddress: job.posterAddress, agentWallets });
  if (!role.allowed) throw new DomainError("forbidden", role.reason, {}, role.code);
  const state = checkState(operation, job.status);
  if (!state.allowed) throw conflict(state.code, state.reason);
  if (OPERATIONS[operation].requiresPayment && !job.paymentTxHash) {
    throw conflict("job_not_paid", "the job is not paid yet");
  }
}

/**
 * Moves a job through `operation` with one conditional UPDATE (from → to, as the table says)
 * and announces the operation's event. Zero rows means another request changed the job
 * first: 409, and nothing of the caller's transaction is kept (its events neither).
 */
export async function transition(
  tx: Prisma.TransactionClient,
  operation: Operation,
  jobId: string,
  data: Omit<Prisma.JobUncheckedUpdateManyInput, "status"> = {},
): Promise<void> {
  const rule = OPERATIONS[operation];
  const { count } = await tx.job.updateMany({
    where: { id: jobId, status: rule.from },
    data: { ...data, status: rule.to },
  });
  if (count !== 1) {
    throw conflict(
      NOT_IN_STATE[rule.from],
      `the job is no longer ${label(rule.from)}; re-read it and retry`,
    );
  }
  announce(tx, operation, { jobId });
}

/**
 * For writes that keep the job's state (propose, reject, pay, review): locks the job in the
 * rule's `from` state for the rest of the transaction, so that a concurrent transition waits
 * (and this write waits for it). 409 when the job has left that state.
 */
export async function holdState(
  tx: Prisma.TransactionClient,
  operation: Operation,
  jobId: string,
  refusal?: () => Error,
): Promise<void> {
  const rule = OPERATIONS[operation];
  if (!(await lockJobInStatus(tx, jobId, rule.from, "share"))) {
    throw (
      refusal?.() ??
      conflict(
        NOT_IN_STATE[rule.from],
        `cannot ${VERBS[operation]}: the job is no longer ${label(rule.from)}`,
      )
    );
  }
}

/**
 * What a viewer may do on a job right now (pages show only valid actions). Paying is offered
 * as the first step of accepting ("Pay & accept"), not on its own.
 */
export function availableOperations(
  status: JobStatus,
  facts: CallerFacts & { paid: boolean },
): Operation[] {
  return (Object.keys(OPERATIONS) as Operation[]).filter((operation) => {
    // Paying is a step of accepting; cancelling depends on the held payment's deadline,
    // which the job's payment view carries (lib/payments/escrow/holds.ts decides it).
    if (operation === "pay" || operation === "cancel") return false;
    const rule = OPERATIONS[operation];
    if (rule.requiresPayment && !facts.paid) return false;
    return checkState(operation, status).allowed && checkRole(operation, facts).allowed;
  });
}

const label = (status: JobStatus) => status.replace("_", " ");
