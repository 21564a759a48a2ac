// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {TokenCollector} from "./TokenCollector.sol";
import {IERC3009Receive} from "./interfaces/IERC3009Receive.sol";
import {IMulticall3TryAggregate} from "./interfaces/IMulticall3TryAggregate.sol";

/// @title ERC3009PaymentCollector (local stand-in)
/// @notice Collects a payment with the payer's EIP-3009 ReceiveWithAuthorization signature,
/// signed for the whole `maxAmount`, to this collector, valid from 0 until the payment's
/// preApprovalExpiry, with the payer-agnostic payment hash as its nonce (one signature, one
/// payment). Whatever the escrow does not take is sent back to the payer. A signature wrapped
/// per ERC-6492 (a wallet not deployed yet) has its preparation call run first, through
/// Multicall3 so that this contract is never the caller. Same ABI as the Commerce Payments
/// Protocol's ERC3009PaymentCollector (github.com/base/commerce-payments, MIT).
contract ERC3009PaymentCollector is TokenCollector {
    TokenCollector.CollectorType public constant override collectorType = TokenCollector.CollectorType.Payment;

    /// @dev ERC-6492's suffix: 0x6492 repeated over 32 bytes.
    bytes32 internal constant _ERC6492_SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;

    /// @notice The neutral caller of ERC-6492 preparation calls.
    IMulticall3TryAggregate public immutable multicall3;

    constructor(address authCaptureEscrow_, address multicall3_) TokenCollector(authCaptureEscrow_) {
        multicall3 = IMulticall3TryAggregate(multicall3_);
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        IERC20 token = IERC20(paymentInfo.token);
        uint256 signed = paymentInfo.maxAmount;
        IERC3009Receive(address(token)).receiveWithAuthorization(
            paymentInfo.payer,
            address(this),
            signed,
            0,
            paymentInfo.preApprovalExpiry,
            _getHashPayerAgnostic(paymentInfo),
            _prepareSignature(collectorData)
        );
        if (signed > amount) SafeERC20.safeTransfer(token, paymentInfo.payer, signed - amount);
        SafeERC20.safeTransfer(token, tokenStore, amount);
    }

    /// @dev An ERC-6492 signature: abi.encode(target, calldata, innerSignature) ++ suffix. Runs
    /// target.call(calldata) (its failure ignored: the wallet may exist already) and returns the
    /// inner signature. Any other signature is returned as it is.
    function _prepareSignature(bytes calldata signature) internal returns (bytes memory) {
        uint256 length = signature.length;
        if (length < 32 || bytes32(signature[length - 32:]) != _ERC6492_SUFFIX) return signature;
        (address target, bytes memory data, bytes memory inner) =
            abi.decode(signature[:length - 32], (address, bytes, bytes));
        IMulticall3TryAggregate.Call[] memory calls = new IMulticall3TryAggregate.Call[](1);
        calls[0] = IMulticall3TryAggregate.Call({target: target, callData: data});
        multicall3.tryAggregate(false, calls);
        return inner;
    }
}
