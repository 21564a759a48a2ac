// The part of the Commerce Payments escrow (v1.1.0) the operator calls and reads, in the
// published signatures (contracts/upstream-abi; lib/payments/escrow/abi.test.ts compares).
import { parseAbi } from "viem";

const PAYMENT_INFO =
  "(address operator, address payer, address receiver, address token, uint120 maxAmount, uint48 preApprovalExpiry, uint48 authorizationExpiry, uint48 refundExpiry, uint16 minFeeBps, uint16 maxFeeBps, address feeReceiver, uint256 salt)";

export const escrowAbi = parseAbi([
  `function authorize(${PAYMENT_INFO} paymentInfo, uint256 amount, address tokenCollector, bytes collectorData)`,
  `function capture(${PAYMENT_INFO} paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)`,
  `function void(${PAYMENT_INFO} paymentInfo)`,
  `function reclaim(${PAYMENT_INFO} paymentInfo)`,
  `function getHash(${PAYMENT_INFO} paymentInfo) view returns (bytes32)`,
  "function paymentState(bytes32 paymentInfoHash) view returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount)",
  `event PaymentAuthorized(bytes32 indexed paymentInfoHash, ${PAYMENT_INFO} paymentInfo, uint256 amount, address tokenCollector)`,
  "event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver)",
  "event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount)",
  "event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount)",
  "event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector)",
]);
