// Base's Commerce Payments Protocol (github.com/base/commerce-payments): its audited escrow and
// token collectors as deployed on Base, release v1.1.0, where capture() and charge() take an
// absolute fee amount (v1.0.0 took basis points). v1.1 is the deployment x402's `auth-capture`
// scheme uses unless a payment names another. Addresses as published in the repository's README
// ("Deployment Addresses") and release notes:
//   https://github.com/base/commerce-payments#deployment-addresses
//   https://github.com/base/commerce-payments/releases/tag/v1.1.0
// Deployed with CREATE2, so the same on Base mainnet (eip155:8453) and Base Sepolia. Constants
// only: this project never deploys to Base. Our own stand-in for the local chain
// (contracts/escrow) is installed at these same addresses there (lib/payments/local-network.ts).
import type { Address } from "viem";

export const COMMERCE_PAYMENTS_V1_1 = {
  version: "v1.1.0",
  authCaptureEscrow: "0xf96815976523E00e65Be8f34cA5e64b4f41EB19c",
  erc3009PaymentCollector: "0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88",
  permit2PaymentCollector: "0xD69831Aed5bfe262067ec4c751f4F830EcdD446e",
  preApprovalPaymentCollector: "0xF1F9C408C787B2bC6CAEB91e5BbEc434a5c8d2Ea",
  spendPermissionPaymentCollector: "0xB508c1C0a13849693DC175307667653C5977a408",
  operatorRefundCollector: "0x7a03443724d14798c4AB4622F1DAAcA761Fea486",
} as const satisfies { version: string } & Record<
  | "authCaptureEscrow"
  | "erc3009PaymentCollector"
  | "permit2PaymentCollector"
  | "preApprovalPaymentCollector"
  | "spendPermissionPaymentCollector"
  | "operatorRefundCollector",
  Address
>;
