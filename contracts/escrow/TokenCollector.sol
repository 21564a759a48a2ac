// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";

/// @title TokenCollector (local stand-in)
/// @notice What the escrow calls to bring tokens into an operator's store: a payment
/// collector (from the payer) or a refund collector (for a refund). Same ABI as the Commerce
/// Payments Protocol's TokenCollector (github.com/base/commerce-payments, MIT).
abstract contract TokenCollector {
    enum CollectorType {
        Payment,
        Refund
    }

    /// @notice The escrow, the only caller of collectTokens.
    AuthCaptureEscrow public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = AuthCaptureEscrow(authCaptureEscrow_);
    }

    /// @notice Moves `amount` of `paymentInfo.token` into `tokenStore`; escrow only.
    function collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external {
        if (msg.sender != address(authCaptureEscrow)) revert OnlyAuthCaptureEscrow();
        _collectTokens(paymentInfo, tokenStore, amount, collectorData);
    }

    /// @notice Which escrow operations may use this collector.
    function collectorType() external view virtual returns (CollectorType);

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal virtual;

    /// @dev The escrow's hash of the payment with its payer set to zero: what a payer signs as
    /// the authorization's nonce before anyone else knows the payer (x402's signatureNonce).
    function _getHashPayerAgnostic(AuthCaptureEscrow.PaymentInfo calldata paymentInfo)
        internal
        view
        returns (bytes32)
    {
        AuthCaptureEscrow.PaymentInfo memory anyPayer = paymentInfo;
        anyPayer.payer = address(0);
        return authCaptureEscrow.getHash(anyPayer);
    }
}
