// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {TokenCollector} from "./TokenCollector.sol";

/// @title OperatorRefundCollector (local stand-in)
/// @notice Funds a refund from the operator's own balance: the operator approves this
/// collector on the token beforehand. Only the operator can start a refund (the escrow checks),
/// so the pull needs no other authorization. Same ABI as the Commerce Payments Protocol's
/// OperatorRefundCollector (github.com/base/commerce-payments, MIT).
contract OperatorRefundCollector is TokenCollector {
    TokenCollector.CollectorType public constant override collectorType = TokenCollector.CollectorType.Refund;

    constructor(address authCaptureEscrow_) TokenCollector(authCaptureEscrow_) {}

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata
    ) internal override {
        SafeERC20.safeTransferFrom(IERC20(paymentInfo.token), paymentInfo.operator, tokenStore, amount);
    }
}
