// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {LibClone} from "solady/utils/LibClone.sol";
import {ReentrancyGuardTransient} from "solady/utils/ReentrancyGuardTransient.sol";

import {TokenStore} from "./TokenStore.sol";
import {TokenCollector} from "./TokenCollector.sol";

/// @title AuthCaptureEscrow (local stand-in)
/// @notice Our own implementation, for the local development chain, of the escrow of Base's
/// Commerce Payments Protocol (github.com/base/commerce-payments, MIT), release v1.1.0: the
/// same ABI (functions, events, errors), the same PaymentInfo struct and typehash, the same
/// rules. A payer's funds are held per operator in a TokenStore clone (authorize), paid out to
/// the receiver minus an absolute fee (capture, repeatable up to the hold), returned by the
/// operator (void) or by the payer after the authorization expiry (reclaim), and given back
/// after capture through a refund collector (refund). `charge` is authorize + capture at once.
/// Written from the protocol's documentation and published interface; not the audited code.
contract AuthCaptureEscrow is ReentrancyGuardTransient {
    /// @notice Everything that identifies one payment and bounds what may happen to it.
    struct PaymentInfo {
        /// @dev The only address that may authorize, capture, void, refund or charge.
        address operator;
        /// @dev Whose funds are held.
        address payer;
        /// @dev Who is paid (less the fee).
        address receiver;
        /// @dev The ERC-20 token.
        address token;
        /// @dev Most that may be collected for this payment.
        uint120 maxAmount;
        /// @dev Funds can be collected (authorize, charge) only before this time.
        uint48 preApprovalExpiry;
        /// @dev Captures only before this time; from it on the payer may reclaim the hold.
        uint48 authorizationExpiry;
        /// @dev Refunds only before this time.
        uint48 refundExpiry;
        /// @dev Fee bounds, in basis points of each captured amount.
        uint16 minFeeBps;
        uint16 maxFeeBps;
        /// @dev The fee's recipient; zero lets the operator name one at capture.
        address feeReceiver;
        /// @dev Makes otherwise equal payments distinct.
        uint256 salt;
    }

    /// @notice What the escrow knows about one payment.
    struct PaymentState {
        /// @dev Set by the first authorize or charge; a payment is collected once.
        bool hasCollectedPayment;
        /// @dev Held and still capturable.
        uint120 capturableAmount;
        /// @dev Captured and not yet refunded.
        uint120 refundableAmount;
    }

    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    uint16 internal constant _BPS_DENOMINATOR = 10_000;

    /// @notice The TokenStore each operator's store is a clone of.
    address public immutable tokenStoreImplementation;

    /// @notice By `getHash(paymentInfo)`.
    mapping(bytes32 paymentInfoHash => PaymentState state) public paymentState;

    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint256 feeAmount,
        address feeReceiver
    );
    event PaymentAuthorized(
        bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector
    );
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint256 feeAmount, address feeReceiver);
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
    event TokenStoreCreated(address indexed operator, address tokenStore);

    error InvalidSender(address sender, address expected);
    error ZeroAmount();
    error AmountOverflow(uint256 amount, uint256 limit);
    error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
    error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
    error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
    error FeeBpsOverflow(uint16 feeBps);
    error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
    error FeeAmountOutOfRange(uint256 feeAmount, uint256 minFee, uint256 maxFee);
    error ZeroFeeReceiver();
    error InvalidFeeReceiver(address attempted, address expected);
    error InvalidCollectorForOperation();
    error TokenCollectionFailed();
    error PaymentAlreadyCollected(bytes32 paymentInfoHash);
    error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
    error ZeroAuthorization(bytes32 paymentInfoHash);
    error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
    error RefundExceedsCapture(uint256 refund, uint256 captured);

    modifier onlySender(address expected) {
        if (msg.sender != expected) revert InvalidSender(msg.sender, expected);
        _;
    }

    /// @dev A non-zero amount that fits the state's uint120 fields.
    modifier validAmount(uint256 amount) {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
        _;
    }

    constructor() {
        tokenStoreImplementation = address(new TokenStore(address(this)));
    }

    /// @notice Collects `amount` from the payer and pays it out at once (no hold).
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint256 feeAmount,
        address feeReceiver
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _checkCollectable(paymentInfo, amount);
        _checkFee(paymentInfo, amount, feeAmount, feeReceiver);
        bytes32 paymentInfoHash = _markCollected(paymentInfo);
        paymentState[paymentInfoHash].refundableAmount = uint120(amount);
        emit PaymentCharged(paymentInfoHash, paymentInfo, amount, tokenCollector, feeAmount, feeReceiver);

        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Payment);
        _payOut(paymentInfo, amount, feeAmount, feeReceiver);
    }

    /// @notice Collects `amount` from the payer into the operator's token store (a hold).
    function authorize(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        _checkCollectable(paymentInfo, amount);
        bytes32 paymentInfoHash = _markCollected(paymentInfo);
        paymentState[paymentInfoHash].capturableAmount = uint120(amount);
        emit PaymentAuthorized(paymentInfoHash, paymentInfo, amount, tokenCollector);

        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Payment);
    }

    /// @notice Pays `amount` of the hold to the receiver, `feeAmount` of it to `feeReceiver`.
    /// Repeatable while a hold remains, before the authorization expiry.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        external
        nonReentrant
        onlySender(paymentInfo.operator)
        validAmount(amount)
    {
        _checkFee(paymentInfo, amount, feeAmount, feeReceiver);
        uint48 deadline = paymentInfo.authorizationExpiry;
        if (block.timestamp >= deadline) revert AfterAuthorizationExpiry(uint48(block.timestamp), deadline);

        bytes32 paymentInfoHash = getHash(paymentInfo);
        PaymentState storage state = paymentState[paymentInfoHash];
        uint120 held = state.capturableAmount;
        if (amount > held) revert InsufficientAuthorization(paymentInfoHash, held, amount);
        state.capturableAmount = held - uint120(amount);
        state.refundableAmount += uint120(amount);
        emit PaymentCaptured(paymentInfoHash, amount, feeAmount, feeReceiver);

        _payOut(paymentInfo, amount, feeAmount, feeReceiver);
    }

    /// @notice Ends the hold: what is left of it goes back to the payer (operator only).
    function void(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.operator) {
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint256 held = _releaseHold(paymentInfoHash);
        emit PaymentVoided(paymentInfoHash, held);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice The payer takes back what is left of the hold, from the authorization expiry on.
    function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.payer) {
        uint48 deadline = paymentInfo.authorizationExpiry;
        if (block.timestamp < deadline) revert BeforeAuthorizationExpiry(uint48(block.timestamp), deadline);
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint256 held = _releaseHold(paymentInfoHash);
        emit PaymentReclaimed(paymentInfoHash, held);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    /// @notice Returns up to the captured amount to the payer, the funds coming through
    /// `tokenCollector` (a Refund collector), before the refund expiry.
    function refund(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
        uint48 deadline = paymentInfo.refundExpiry;
        if (block.timestamp >= deadline) revert AfterRefundExpiry(uint48(block.timestamp), deadline);
        bytes32 paymentInfoHash = getHash(paymentInfo);
        uint120 captured = paymentState[paymentInfoHash].refundableAmount;
        if (amount > captured) revert RefundExceedsCapture(amount, captured);
        paymentState[paymentInfoHash].refundableAmount = captured - uint120(amount);
        emit PaymentRefunded(paymentInfoHash, amount, tokenCollector);

        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Refund);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, amount);
    }

    /// @notice The payment's id: its EIP-712 struct hash, bound to this chain and this escrow.
    function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
        return keccak256(abi.encode(block.chainid, address(this), structHash));
    }

    /// @notice Where `operator`'s held funds live (a clone deployed on first use).
    function getTokenStore(address operator) public view returns (address) {
        return LibClone.predictDeterministicAddress(tokenStoreImplementation, _storeSalt(operator), address(this));
    }

    // ------------------------------------------------------------------ checks

    function _checkCollectable(PaymentInfo calldata paymentInfo, uint256 amount) internal view {
        if (amount > paymentInfo.maxAmount) revert ExceedsMaxAmount(amount, paymentInfo.maxAmount);
        uint48 nowTime = uint48(block.timestamp);
        uint48 preApproval = paymentInfo.preApprovalExpiry;
        uint48 authorization = paymentInfo.authorizationExpiry;
        uint48 refundBy = paymentInfo.refundExpiry;
        if (nowTime >= preApproval) revert AfterPreApprovalExpiry(nowTime, preApproval);
        if (preApproval > authorization || authorization > refundBy) {
            revert InvalidExpiries(preApproval, authorization, refundBy);
        }
        if (paymentInfo.maxFeeBps > _BPS_DENOMINATOR) revert FeeBpsOverflow(paymentInfo.maxFeeBps);
        if (paymentInfo.minFeeBps > paymentInfo.maxFeeBps) {
            revert InvalidFeeBpsRange(paymentInfo.minFeeBps, paymentInfo.maxFeeBps);
        }
    }

    /// @dev The fee must lie within the bps bounds of this `amount` (each rounded down), go to
    /// a non-zero address when non-zero, and to the payment's feeReceiver when it names one.
    function _checkFee(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        internal
        pure
    {
        uint256 minFee = amount * paymentInfo.minFeeBps / _BPS_DENOMINATOR;
        uint256 maxFee = amount * paymentInfo.maxFeeBps / _BPS_DENOMINATOR;
        if (feeAmount < minFee || feeAmount > maxFee) revert FeeAmountOutOfRange(feeAmount, minFee, maxFee);
        if (feeAmount > 0 && feeReceiver == address(0)) revert ZeroFeeReceiver();
        address fixedReceiver = paymentInfo.feeReceiver;
        if (fixedReceiver != address(0) && feeReceiver != fixedReceiver) {
            revert InvalidFeeReceiver(feeReceiver, fixedReceiver);
        }
    }

    /// @dev Marks the payment collected (once only) and returns its hash.
    function _markCollected(PaymentInfo calldata paymentInfo) internal returns (bytes32 paymentInfoHash) {
        paymentInfoHash = getHash(paymentInfo);
        PaymentState storage state = paymentState[paymentInfoHash];
        if (state.hasCollectedPayment) revert PaymentAlreadyCollected(paymentInfoHash);
        state.hasCollectedPayment = true;
    }

    /// @dev Empties the hold and returns what it held (refusing an empty one).
    function _releaseHold(bytes32 paymentInfoHash) internal returns (uint256 held) {
        held = paymentState[paymentInfoHash].capturableAmount;
        if (held == 0) revert ZeroAuthorization(paymentInfoHash);
        paymentState[paymentInfoHash].capturableAmount = 0;
    }

    // ------------------------------------------------------------------ token movements

    /// @dev Pulls `amount` into the operator's store through a collector of the given type and
    /// checks that the store grew by exactly that much.
    function _collect(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        TokenCollector.CollectorType expectedType
    ) internal {
        if (TokenCollector(tokenCollector).collectorType() != expectedType) revert InvalidCollectorForOperation();
        IERC20 token = IERC20(paymentInfo.token);
        address store = getTokenStore(paymentInfo.operator);
        uint256 before = token.balanceOf(store);
        TokenCollector(tokenCollector).collectTokens(paymentInfo, store, amount, collectorData);
        if (token.balanceOf(store) != before + amount) revert TokenCollectionFailed();
    }

    /// @dev Splits a captured amount: the fee, then the rest to the receiver.
    function _payOut(PaymentInfo calldata paymentInfo, uint256 amount, uint256 feeAmount, address feeReceiver)
        internal
    {
        if (feeAmount > 0) _send(paymentInfo.operator, paymentInfo.token, feeReceiver, feeAmount);
        if (amount > feeAmount) _send(paymentInfo.operator, paymentInfo.token, paymentInfo.receiver, amount - feeAmount);
    }

    /// @dev Sends from `operator`'s store, creating the store on its first use. A revert of the
    /// store's transfer is passed on as it came.
    function _send(address operator, address token, address recipient, uint256 amount) internal {
        address store = getTokenStore(operator);
        if (store.code.length == 0) {
            LibClone.cloneDeterministic(tokenStoreImplementation, _storeSalt(operator));
            emit TokenStoreCreated(operator, store);
        }
        (bool ok, bytes memory returned) =
            store.call(abi.encodeCall(TokenStore.sendTokens, (token, recipient, amount)));
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(returned, 0x20), mload(returned))
            }
        }
        if (returned.length != 32 || !abi.decode(returned, (bool))) revert TokenCollectionFailed();
    }

    function _storeSalt(address operator) internal pure returns (bytes32) {
        return bytes32(bytes20(operator));
    }

    /// @dev Transient storage on every chain (the local chain runs Cancun).
    function _useTransientReentrancyGuardOnlyOnMainnet() internal view virtual override returns (bool) {
        return false;
    }
}
