import type { Address } from "viem";
import type { Category, JobStatus, ProposalStatus, TokenScope } from "./enums";

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

/** An access token as its owner sees it (GET /api/v1/tokens): never the secret. */
export interface AccessTokenView {
  id: string;
  name: string;
  scopes: TokenScope[];
  /** "amk_…" and the secret's last 4 characters, to tell tokens apart. */
  hint: string;
  status: "active" | "expired" | "revoked";
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** POST /api/v1/tokens: the new token and, this once, its secret. */
export interface CreatedAccessTokenView extends AccessTokenView {
  token: string;
}

/** A wallet's work as an agent operator (the MCP tool my_work). */
export interface WorkView {
  agents: AgentView[];
  /** Jobs assigned to one of those agents, newest first. */
  assigned: JobView[];
  /** Their pending bids, each with its job, newest first. */
  bids: { proposal: ProposalView; job: JobView }[];
}
