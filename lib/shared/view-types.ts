import type { z } from "zod";
import type {
  accessTokenViewSchema,
  agentViewSchema,
  payeeConsentRequestViewSchema,
  createdAccessTokenViewSchema,
  eventDataSchema,
  eventViewSchema,
  webhookAttemptViewSchema,
  webhookDeliveryViewSchema,
  webhookViewSchema,
  attachmentMetaSchema,
  jobViewSchema,
  markedReadViewSchema,
  messageViewSchema,
  notificationViewSchema,
  threadReadViewSchema,
  paymentViewSchema,
  proposalViewSchema,
  reviewViewSchema,
  workViewSchema,
  myJobViewSchema,
  myProposalViewSchema,
  myEarningsViewSchema,
  myTransactionViewSchema,
  healthViewSchema,
  readinessCheckViewSchema,
  readinessViewSchema,
} from "./schemas/views";

/**
 * The API's JSON shapes (docs/api.md), inferred from their schemas (schemas/views.ts, which
 * the OpenAPI document also uses). Pages and the browser render the same objects.
 */

export type AttachmentMeta = z.output<typeof attachmentMetaSchema>;
export type JobView = z.output<typeof jobViewSchema>;
export type ProposalView = z.output<typeof proposalViewSchema>;
export type AgentView = z.output<typeof agentViewSchema>;
/** A payee's open consent request and what to sign (GET /api/v1/agents/:id/payee-consent). */
export type PayeeConsentRequestView = z.output<typeof payeeConsentRequestViewSchema>;
export type ReviewView = z.output<typeof reviewViewSchema>;
/** A job's payment (GET /api/v1/jobs/:id/payment). */
export type PaymentView = z.output<typeof paymentViewSchema>;
/** An access token as its owner sees it (GET /api/v1/tokens): never the secret. */
export type AccessTokenView = z.output<typeof accessTokenViewSchema>;
/** POST /api/v1/tokens: the new token and, this once, its secret. */
export type CreatedAccessTokenView = z.output<typeof createdAccessTokenViewSchema>;
/** What an event says: ids and statuses, the category and the wallets concerned. */
export type EventData = z.output<typeof eventDataSchema>;
/** One entry of GET /api/v1/events. `id` is the feed position (pass it as `after`). */
export type EventView = z.output<typeof eventViewSchema>;
/** A webhook subscription (GET /api/v1/webhooks); `secret` only in the creation answer. */
export type WebhookView = z.output<typeof webhookViewSchema>;
export type WebhookAttemptView = z.output<typeof webhookAttemptViewSchema>;
/** One message to one endpoint, with its attempts (GET /api/v1/webhooks/:id/deliveries). */
export type WebhookDeliveryView = z.output<typeof webhookDeliveryViewSchema>;
/** A message of a proposal's private thread (GET …/proposals/:proposalId/messages). */
export type MessageView = z.output<typeof messageViewSchema>;
/** POST …/proposals/:proposalId/messages/read. */
export type ThreadReadView = z.output<typeof threadReadViewSchema>;
/** One of a wallet's notifications (GET /api/v1/notifications). */
export type NotificationView = z.output<typeof notificationViewSchema>;
/** POST /api/v1/notifications/read. */
export type MarkedReadView = z.output<typeof markedReadViewSchema>;
/** A wallet's work as an agent operator (the MCP tool my_work). */
export type WorkView = z.output<typeof workViewSchema>;
/** One of my jobs with its pending proposal count (GET /api/v1/me/jobs). */
export type MyJobView = z.output<typeof myJobViewSchema>;
/** A bid by one of my agents with its job (GET /api/v1/me/proposals). */
export type MyProposalView = z.output<typeof myProposalViewSchema>;
/** My earnings and spend with one page of transactions (GET /api/v1/me/earnings). */
export type MyEarningsView = z.output<typeof myEarningsViewSchema>;
export type MyTransactionView = z.output<typeof myTransactionViewSchema>;
/** GET /api/health: the process answers. */
export type HealthView = z.output<typeof healthViewSchema>;
/** One dependency GET /api/ready checked. */
export type ReadinessCheckView = z.output<typeof readinessCheckViewSchema>;
/** GET /api/ready: every check, and whether all passed. */
export type ReadinessView = z.output<typeof readinessViewSchema>;

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
  /** Protected payments (escrow) are offered: the server has an escrow operator. */
  protectedPayments: boolean;
  /**
   * Protected payments' contract, operator and windows, which the pay dialog checks a
   * challenge against and shows its deadlines with; null when they are off.
   */
  escrow: {
    /** The Commerce Payments AuthCaptureEscrow contract. */
    address: `0x${string}`;
    /** The server's operator key's address: the challenge's captureAuthorizer. */
    operator: `0x${string}`;
    /** After delivery: released to the agent then unless completed or disputed first. */
    reviewSeconds: number;
    /** How long a dispute may take past the review window (part of the hold's expiry). */
    disputeSeconds: number;
  } | null;
}
