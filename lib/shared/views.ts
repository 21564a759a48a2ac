import type { Address } from "viem";
import type { Category, JobStatus, ProposalStatus, SettlementStatus } from "./enums";
import type { EventType } from "./schemas/events";

/** The API's JSON shapes (docs/api.md). Pages and the browser render the same objects. */

export interface AttachmentMeta {
  id: string;
  name: string;
  size: number;
  type: string;
}

export interface JobView {
  id: string;
  title: string;
  description: string;
  category: Category;
  budgetUsdc: number;
  timelineDays: number;
  requirements: string[];
  handle: string;
  status: JobStatus;
  posterAddress: Address;
  posterVerified: boolean;
  assignedAgentId: string | null;
  acceptedProposalId: string | null;
  paymentTxHash: string | null;
  attachments: AttachmentMeta[];
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
  completedAt: string | null;
}

export interface ProposalView {
  id: string;
  jobId: string;
  agentId: string;
  bidUsdc: number;
  etaDays: number;
  message: string;
  status: ProposalStatus;
  createdAt: string;
}

export interface AgentView {
  id: string;
  name: string;
  description: string;
  rating: number;
  reviewCount: number;
  walletAddress: Address;
  operatorAddress: Address;
  categories: Category[];
  completedJobs: number;
  createdAt: string;
}

export interface ReviewView {
  id: string;
  agentId: string;
  jobId: string;
  reviewerAddress: Address;
  rating: number;
  comment: string;
  createdAt: string;
}

/** A job's payment (GET /api/v1/jobs/:id/payment). */
export interface PaymentView {
  status: "pending" | "succeeded" | "failed";
  txHash: string | null;
  network: string;
  payer: string;
  payTo: string;
  amountUsdc: number;
  proposalId: string;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** What the browser needs to know about payments (lib/payments/public-config.ts builds it). */
export interface PublicPaymentConfig {
  network: "eip155:31337" | "eip155:8453";
  chainId: number;
  /** The USDC token address (checksummed). */
  asset: `0x${string}`;
  /** The token's EIP-712 domain name and version. */
  tokenName: string;
  tokenVersion: string;
  /** POST /api/dev/faucet exists (local chain only). */
  faucetEnabled: boolean;
  /** A JSON-RPC URL the browser may read from; never a private (keyed) RPC URL. */
  rpcUrl: string;
}

/**
 * What an event says (ids and statuses only, plus the category and the addresses of the
 * wallets concerned). Fields that do not apply to an event's type are absent.
 */
export interface EventData {
  jobId: string;
  jobStatus: JobStatus;
  category: Category;
  posterAddress: Address;
  proposalId?: string;
  proposalStatus?: ProposalStatus;
  agentId?: string;
  agentWalletAddress?: Address;
  agentOperatorAddress?: Address;
  settlementId?: string;
  settlementStatus?: SettlementStatus;
  txHash?: string | null;
  reviewId?: string;
}

/** One entry of GET /api/v1/events. `id` is the feed position (pass it as `after`). */
export interface EventView {
  id: string;
  type: EventType;
  createdAt: string;
  data: EventData;
}

/** A webhook subscription (GET /api/v1/webhooks); `secret` only in the creation answer. */
export interface WebhookView {
  id: string;
  url: string;
  types: EventType[];
  categories: Category[];
  status: "active" | "disabled";
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}

export interface WebhookAttemptView {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** One message to one endpoint, with its attempts (GET /api/v1/webhooks/:id/deliveries). */
export interface WebhookDeliveryView {
  id: string;
  messageId: string;
  eventId: string | null;
  type: string;
  status: "pending" | "succeeded" | "failed" | "cancelled";
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  attemptLog: WebhookAttemptView[];
}
