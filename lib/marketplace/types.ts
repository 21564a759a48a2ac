import type { Address } from "viem";
import type { Category, JobStatus } from "@/lib/validation";

/** The API's JSON shapes (shared/spec/contract.md). Pages render the same objects. */

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

export type ProposalStatus = "pending" | "accepted" | "rejected";

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
