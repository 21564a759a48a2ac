import { type Address, getAddress } from "viem";
import type {
  Agent,
  Attachment,
  Job,
  Proposal,
  Review,
  Wallet,
} from "@/lib/generated/prisma/client";
import { setBounded } from "@/lib/shared/bounded-map";
import { atomicToUsdc } from "@/lib/shared/money";
import type { AgentView, JobView, ProposalView, ReviewView } from "@/lib/shared/view-types";

/** Database rows → API JSON, in one place: money as numbers, addresses checksummed. */

export type JobRow = Job & {
  poster: Pick<Wallet, "verified">;
  attachments: Pick<Attachment, "id" | "name" | "size" | "type">[];
};

export const jobInclude = {
  poster: { select: { verified: true } },
  attachments: {
    select: { id: true, name: true, size: true, type: true },
    orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }],
  },
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * EIP-55 checksumming hashes the address (keccak-256), for every row of every list. Few
 * distinct addresses recur across rows, so the answers are remembered (bounded: past
 * CHECKSUMS_KEPT the one remembered longest ago goes, which costs only recomputation).
 */
const checksums = new Map<string, Address>();
const CHECKSUMS_KEPT = 10_000;

export function checksumAddress(address: string): Address {
  let known = checksums.get(address);
  if (known === undefined) {
    known = getAddress(address);
    setBounded(checksums, address, known, CHECKSUMS_KEPT);
  }
  return known;
}

const UPPER_CASE = /[A-F]/;

/**
 * An address read from a column its writers fill through getAddress (a job's poster, an
 * agent's wallet and operator, a reviewer: the signed-in wallet or a validated input; lookups
 * by these columns compare the text exactly, so the app already relies on it), as the API
 * answers it: taken as written when it holds an upper-case letter (EIP-55 text), checksummed
 * when all lower case (a row written otherwise, or the rare address whose checksum has no
 * upper case). Checksumming each cost a keccak-256, about 16 µs for an address not remembered:
 * 0.8 ms or more for a page of 50 jobs from 50 posters (2026-11-27). The views below, the JSON
 * pages PostgreSQL writes (view-json.ts) and the events (event-rows.ts) all answer these
 * columns through it, so that one row reads the same everywhere.
 */
export const checksumStoredAddress = (address: string): Address =>
  UPPER_CASE.test(address) ? (address as Address) : checksumAddress(address);

export function toJobView(row: JobRow): JobView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    category: row.category,
    budgetUsdc: atomicToUsdc(row.budgetAtomic),
    timelineDays: row.timelineDays,
    requirements: row.requirements,
    handle: row.handle,
    status: row.status,
    posterAddress: checksumStoredAddress(row.posterAddress),
    posterVerified: row.poster.verified,
    assignedAgentId: row.assignedAgentId,
    acceptedProposalId: row.acceptedProposalId,
    paymentTxHash: row.paymentTxHash,
    attachments: row.attachments.map(({ id, name, size, type }) => ({ id, name, size, type })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    deliveredAt: iso(row.deliveredAt),
    completedAt: iso(row.completedAt),
  };
}

export function toProposalView(row: Proposal): ProposalView {
  return {
    id: row.id,
    jobId: row.jobId,
    agentId: row.agentId,
    bidUsdc: atomicToUsdc(row.bidAtomic),
    etaDays: row.etaDays,
    message: row.message,
    payeeAddress: checksumAddress(row.payeeAddress),
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

export interface AgentStats {
  ratingSum: number;
  reviewCount: number;
  completedJobs: number;
  /** Distinct posters whose payments count. */
  payers: number;
  paidAtomic: bigint;
}

export function toAgentView(row: Agent, stats: AgentStats): AgentView {
  const mean = stats.reviewCount > 0 ? stats.ratingSum / stats.reviewCount : 0;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    rating: Math.round(mean * 100) / 100,
    reviewCount: stats.reviewCount,
    walletAddress: row.walletAddress === null ? null : checksumStoredAddress(row.walletAddress),
    payeeConsentPending: row.pendingWalletAddress !== null,
    operatorAddress: checksumStoredAddress(row.operatorAddress),
    categories: row.categories,
    completedJobs: stats.completedJobs,
    paidByPosters: stats.payers,
    totalPaidUsdc: atomicToUsdc(BigInt(stats.paidAtomic)),
    createdAt: row.createdAt.toISOString(),
  };
}

export function toReviewView(row: Review): ReviewView {
  return {
    id: row.id,
    agentId: row.agentId,
    jobId: row.jobId,
    reviewerAddress: checksumStoredAddress(row.reviewerAddress),
    rating: row.rating,
    comment: row.comment,
    createdAt: row.createdAt.toISOString(),
  };
}
